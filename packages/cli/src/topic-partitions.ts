import type { Admin } from '@kafkats/client';
import { CliError } from './cli-error.js';
import { rethrowActionable } from './context.js';

/**
 * The partitions of `topic` (all of them, or the ones asked for), from a fresh description.
 * @throws CliError `ERR_KAFKA_CLI_NOT_FOUND` for an unknown topic or partition; authorization as {@link rethrowActionable}
 */
export async function topicPartitions(
  admin: Admin,
  topic: string,
  timeoutMs: number,
  only?: readonly number[],
): Promise<{ topicId: string; partitions: number[] }> {
  const [described] = (await admin.describeTopics([topic], { timeoutMs })).topics;
  if (described?.error !== undefined)
    rethrowActionable(described.error, 'DESCRIBE', { type: 'TOPIC', name: topic });
  const all = (described?.partitions ?? []).map((p) => p.partition);
  if (only === undefined || only.length === 0)
    return { topicId: described?.topicId ?? '', partitions: all };
  for (const p of only) {
    if (!all.includes(p)) {
      throw new CliError(
        'ERR_KAFKA_CLI_NOT_FOUND',
        `topic ${topic} has no partition ${p} (it has ${all.length}: 0-${all.length - 1})`,
      );
    }
  }
  return { topicId: described?.topicId ?? '', partitions: [...only] };
}
