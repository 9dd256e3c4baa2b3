// A scripted group coordinator for the consumer's unit tests: every request the code under test
// sends waits until the test answers it, so a test walks the protocol one exchange at a time.
import {
  type ApiDescriptor,
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  createConsumerGroupHeartbeatResponse,
} from '@kafkats/codec';
import type { Cluster } from '@kafkats/meta';

export interface PendingRequest {
  readonly apiName: string;
  readonly request: unknown;
  respond(response: unknown): void;
  fail(error: Error): void;
}

export interface FakeTopic {
  readonly name: string;
  readonly topicId: string;
  readonly partitions: number;
}

/** A fake `Cluster` whose group coordinator is the test itself. */
export class ScriptedCoordinator {
  readonly invalidated: string[] = [];
  readonly refreshed: string[][] = [];
  topics: FakeTopic[];
  /** Names metadata answers UNKNOWN_TOPIC_OR_PARTITION for, once they were refreshed. */
  missingTopics: string[] = [];
  heartbeatVersion: number | undefined = 1;
  /** Answers a request at once when it returns a response; undefined leaves it to `next()`. */
  auto: ((apiName: string, request: unknown) => unknown) | undefined;
  readonly #queue: PendingRequest[] = [];
  readonly #waiters: ((p: PendingRequest) => void)[] = [];

  constructor(topics: FakeTopic[] = []) {
    this.topics = topics;
  }

  get cluster(): Cluster {
    const fake = {
      negotiatedFor: async (apiKey: number) => (apiKey === 68 ? this.heartbeatVersion : 9),
      requestTimeoutMs: 30_000,
      invalidateCoordinator: (_kind: string, key: string) => {
        this.invalidated.push(key);
      },
      snapshot: () => {
        const topics = this.topics.map((t) => ({
          name: t.name,
          topicId: t.topicId,
          isInternal: false,
          errorCode: 0,
          partitions: Array.from({ length: t.partitions }, (_, i) => ({ partition: i })),
        }));
        const known = (name: string) => topics.find((t) => t.name === name);
        // A name in `missingTopics` is answered as metadata answers a topic that does not exist.
        const missing = (name: string) =>
          this.refreshed.some((r) => r.includes(name)) && this.missingTopics.includes(name)
            ? { name, topicId: '', isInternal: false, errorCode: 3, partitions: [] }
            : undefined;
        return { topics, topic: (name: string) => known(name) ?? missing(name) };
      },
      refreshTopics: async (names: readonly string[]) => {
        this.refreshed.push([...names]);
      },
      retryPolicy: { coordinatorTimeoutMs: 30_000, operationTimeoutMs: 60_000 },
      sendToCoordinator: <Req, Res>(
        _kind: string,
        _key: string,
        api: ApiDescriptor<Req, Res>,
        request: Req | ((version: number) => Req),
        options: { signal?: AbortSignal } = {},
      ): Promise<Res> =>
        new Promise<Res>((resolve, reject) => {
          const built =
            typeof request === 'function'
              ? (request as (v: number) => Req)(this.heartbeatVersion ?? 0)
              : request;
          const pending: PendingRequest = {
            apiName: api.name,
            request: built,
            respond: (r) => resolve(r as Res),
            fail: reject,
          };
          const answer = this.auto?.(api.name, built);
          if (answer !== undefined) {
            setTimeout(() => resolve(answer as Res), 0);
            return;
          }
          options.signal?.addEventListener('abort', () => reject(new Error('aborted')), {
            once: true,
          });
          const waiter = this.#waiters.shift();
          if (waiter === undefined) this.#queue.push(pending);
          else waiter(pending);
        }),
    };
    return fake as unknown as Cluster;
  }

  /** The next request sent (waits for it). */
  next(): Promise<PendingRequest> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** The next ConsumerGroupHeartbeat, with its request typed. */
  async nextHeartbeat(): Promise<{
    request: ConsumerGroupHeartbeatRequest;
    respond(r: Partial<ConsumerGroupHeartbeatResponse>): void;
    fail(error: Error): void;
  }> {
    const p = await this.next();
    if (p.apiName !== 'ConsumerGroupHeartbeat')
      throw new Error(`expected ConsumerGroupHeartbeat, got ${p.apiName}`);
    return {
      request: p.request as ConsumerGroupHeartbeatRequest,
      respond: (r) => p.respond(createConsumerGroupHeartbeatResponse(r)),
      fail: (e) => p.fail(e),
    };
  }
}

/** A heartbeat answer's assignment: topic id to partitions. */
export function assignment(byId: Record<string, number[]>) {
  return {
    topicPartitions: Object.entries(byId).map(([topicId, partitions]) => ({ topicId, partitions })),
  };
}
