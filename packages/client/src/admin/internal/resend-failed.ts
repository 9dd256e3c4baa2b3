import { ErrorCode, type KafkaError, ProtocolError } from '@kafkats/codec';
import type { AdminCall } from './admin-call.js';

// Per-item answers after which Kafka's admin sends the item again: the broker it reached was
// not (or no longer) the controller, or the controller throttled the mutation (KIP-599).
const RESEND: ReadonlySet<number> = new Set([
  ErrorCode.NOT_CONTROLLER,
  ErrorCode.THROTTLING_QUOTA_EXCEEDED,
]);

/**
 * Sends a controller-routed batch (CreateTopics, DeleteTopics, CreatePartitions) and sends
 * again only the items answered NOT_CONTROLLER (after a metadata refresh names the
 * controller afresh) or THROTTLING_QUOTA_EXCEEDED (after the retry backoff), until the call's
 * deadline; the items that succeeded or failed for good are not sent twice. An item still
 * refused at the deadline keeps that answer as its error.
 *
 * @param send one request for `batch`, resolving with one result per item in `batch` order;
 *   a rejection (the whole request failed after the cluster's retries) ends the call
 */
export async function resendFailed<I, R extends { readonly error?: KafkaError | undefined }>(
  call: AdminCall,
  items: readonly I[],
  send: (batch: readonly I[]) => Promise<R[]>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let pending = items.map((item, index) => ({ item, index }));
  for (let round = 1; pending.length > 0; round++) {
    const answers = await send(pending.map((p) => p.item));
    const again: typeof pending = [];
    let refresh = false;
    for (let j = 0; j < pending.length; j++) {
      const p = pending[j]!;
      const answer = answers[j]!;
      results[p.index] = answer;
      const error = answer.error;
      if (error instanceof ProtocolError && RESEND.has(error.errorCode)) {
        again.push(p);
        if (error.errorCode === ErrorCode.NOT_CONTROLLER) refresh = true;
      }
    }
    if (again.length === 0 || !(await call.backoff(round + 1))) break;
    if (refresh) await call.cluster.refresh().catch(() => {});
    pending = again;
  }
  return results;
}
