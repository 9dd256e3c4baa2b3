export {
  type AwsCredentialsProvider,
  AwsMskIamMechanism,
  type AwsMskIamOptions,
  awsMskIam,
} from './mechanism.js';
export {
  type AwsCredentials,
  MSK_IAM_PAYLOAD_VERSION,
  type MskIamPayloadParams,
  mskIamPayload,
  regionOfHost,
} from './payload.js';
