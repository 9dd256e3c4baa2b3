/** Kafka's zero uuid (`Uuid.ZERO_UUID`, "no id"), in Kafka's base64url text form. */
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
