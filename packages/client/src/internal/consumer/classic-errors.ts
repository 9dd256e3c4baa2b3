import { KafkaError } from '@kafkats/codec';

/** The stable codes a {@link ClassicMembershipError} carries. */
export type ClassicMembershipErrorCode =
  /** No assignor configured, or a name that is neither `range` nor `cooperative-sticky`. */
  | 'ERR_KAFKA_GROUP_ASSIGNOR_INVALID'
  /**
   * The coordinator chose a protocol (assignor) this member did not offer, or answered with
   * another protocol type or name than the group's (Kafka's INCONSISTENT_GROUP_PROTOCOL).
   */
  | 'ERR_KAFKA_GROUP_PROTOCOL_MISMATCH'
  /** `start()` was called twice. */
  | 'ERR_KAFKA_GROUP_MEMBERSHIP_STARTED'
  /** The membership was left or abandoned before it had delivered an assignment. */
  | 'ERR_KAFKA_GROUP_MEMBERSHIP_STOPPED';

/** The classic group membership cannot go on, for a reason that is not a broker error code. Not retriable. */
export class ClassicMembershipError extends KafkaError {
  readonly groupId: string;

  constructor(code: ClassicMembershipErrorCode, groupId: string, detail: string) {
    super(code, `group ${groupId}: ${detail}`, { retriable: false });
    this.groupId = groupId;
  }
}
