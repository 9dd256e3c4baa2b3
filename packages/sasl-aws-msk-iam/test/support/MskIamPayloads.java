import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.msk.auth.iam.internals.AWS4SignedPayloadGenerator;
import software.amazon.msk.auth.iam.internals.AuthenticationRequestParams;

/**
 * The AWS_MSK_IAM payloads AWS's own library (aws-msk-iam-auth) builds, signed now. Each stdin
 * line is tab-separated base64 fields: host, access key id, secret access key, session token
 * (empty for long-term credentials), user agent. Each stdout line is the payload in base64, in
 * input order. The region comes from the host, as the library's IAMSaslClient takes it.
 */
public class MskIamPayloads {
  private static String field(String[] fields, int i) {
    return new String(Base64.getDecoder().decode(fields[i]), StandardCharsets.UTF_8);
  }

  public static void main(String[] args) throws Exception {
    AWS4SignedPayloadGenerator generator = new AWS4SignedPayloadGenerator();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    StringBuilder out = new StringBuilder();
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      if (line.isEmpty()) continue;
      String[] fields = line.split("\t", -1);
      String token = field(fields, 3);
      AwsCredentials credentials = token.isEmpty()
          ? AwsBasicCredentials.create(field(fields, 1), field(fields, 2))
          : AwsSessionCredentials.create(field(fields, 1), field(fields, 2), token);
      AuthenticationRequestParams params =
          AuthenticationRequestParams.create(field(fields, 0), credentials, field(fields, 4));
      out.append(Base64.getEncoder().encodeToString(generator.signedPayload(params))).append('\n');
    }
    System.out.print(out);
  }
}
