// Prints Kafka's own murmur2 hash and default key partition for keys read from stdin, one
// hex-encoded key per line: "<hex> <murmur2> <toPositive(murmur2) % partitions>". Run with the
// pinned kafka-clients jar on the class path (Java's single-file source launcher).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.utils.Utils;

public class Murmur2Vectors {
  public static void main(String[] args) throws Exception {
    int partitions = Integer.parseInt(args[0]);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    StringBuilder out = new StringBuilder();
    for (String line; (line = in.readLine()) != null; ) {
      byte[] key = HexFormat.of().parseHex(line.trim());
      out.append(line.trim()).append(' ').append(Utils.murmur2(key)).append(' ')
          .append(BuiltInPartitioner.partitionForKey(key, partitions)).append('\n');
    }
    System.out.print(out);
  }
}
