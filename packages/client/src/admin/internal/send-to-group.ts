import { type ApiDescriptor, ErrorCode } from '@kafkats/codec';
import type { ClusterSendOptions } from '@kafkats/meta';
import type { AdminCall } from './admin-call.js';

// Group-level answers after which Kafka's admin (CoordinatorStrategy) asks again: the
// coordinator moved or is unknown (find it again), or it is still loading the group.
const FIND_AGAIN: ReadonlySet<number> = new Set([
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
]);

/**
 * Sends a group API to the group's coordinator. The cluster retries failed requests and
 * top-level coordinator errors; this also acts on the group-level error code inside a
 * successful answer (`groupError` reads it): NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE
 * forget the cached coordinator, COORDINATOR_LOAD_IN_PROGRESS waits, and both ask again,
 * within the policy's `coordinatorTimeoutMs` and the call's deadline. The last answer is
 * returned as it is when the time runs out, its error then the group's result.
 */
export async function sendToGroup<Req, Res>(
  call: AdminCall,
  groupId: string,
  api: ApiDescriptor<Req, Res>,
  request: Req | ((version: number) => Req),
  groupError: (response: Res) => number,
  options: ClusterSendOptions = {},
): Promise<Res> {
  const started = Date.now();
  for (let round = 1; ; round++) {
    const response = await call.cluster.sendToCoordinator(
      'group',
      groupId,
      api,
      request,
      call.sendOptions(options),
    );
    const code = groupError(response);
    const moved = FIND_AGAIN.has(code);
    if (!moved && code !== ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) return response;
    if (moved) call.cluster.invalidateCoordinator('group', groupId);
    if (Date.now() - started >= call.cluster.retryPolicy.coordinatorTimeoutMs) return response;
    if (!(await call.backoff(round + 1))) return response;
  }
}
