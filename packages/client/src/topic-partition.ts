/** One partition of one topic: how every client call names a partition. */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}
