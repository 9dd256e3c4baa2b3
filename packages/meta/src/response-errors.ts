import { ErrorCode, KafkaError, type ProtocolError } from '@kafkats/codec';

/** An error code found inside a response that as a whole succeeded. */
export interface ResponseErrorEntry {
  /** Where: `topics[0].partitions[3]` (the object holding the `errorCode`). */
  readonly path: string;
  /** That object's `name`/`topic` and `partitionIndex`/`partition`/`index`, when it has them. */
  readonly topic?: string;
  readonly partition?: number;
  readonly error: ProtocolError;
}

function nameOf(node: Record<string, unknown>): string | undefined {
  const v = node.name ?? node.topic ?? node.topicName;
  return typeof v === 'string' ? v : undefined;
}

function partitionOf(node: Record<string, unknown>): number | undefined {
  const v = node.partitionIndex ?? node.partition ?? node.index ?? node.partitionId;
  return typeof v === 'number' ? v : undefined;
}

/**
 * Every non-zero `errorCode` inside a decoded response, at any depth (per topic, per
 * partition, per group...), with the same taxonomy as a failed request: a caller sees
 * `needsMetadataRefresh` on a partition's NOT_LEADER_OR_FOLLOWER and re-asks. The top-level
 * `errorCode` is included with path `''`. Topic names are inherited by nested partitions.
 *
 * @param context goes first in each error's message, e.g. `Produce v11 from broker 2`
 */
export function responseErrors(response: unknown, context = ''): ResponseErrorEntry[] {
  const out: ResponseErrorEntry[] = [];
  const walk = (node: unknown, path: string, topic: string | undefined): void => {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) walk(node[i], `${path}[${i}]`, topic);
      return;
    }
    if (typeof node !== 'object' || node === null || Buffer.isBuffer(node)) return;
    const obj = node as Record<string, unknown>;
    const here = nameOf(obj) ?? topic;
    const code = obj.errorCode;
    if (typeof code === 'number' && code !== ErrorCode.NONE) {
      const partition = partitionOf(obj);
      const where = [here, partition].filter((x) => x !== undefined).join('-');
      const message = typeof obj.errorMessage === 'string' ? ` (${obj.errorMessage})` : '';
      out.push({
        path,
        ...(here === undefined ? {} : { topic: here }),
        ...(partition === undefined ? {} : { partition }),
        error: KafkaError.fromCode(
          code,
          `${context}${context && where ? ', ' : ''}${where}${message}`,
        ),
      });
    }
    for (const [key, value] of Object.entries(obj)) {
      if (typeof value === 'object' && value !== null && key !== '_unknownTaggedFields') {
        walk(value, path === '' ? key : `${path}.${key}`, here);
      }
    }
  };
  walk(response, '', undefined);
  return out;
}
