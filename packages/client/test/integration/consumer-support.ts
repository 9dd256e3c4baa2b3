// Shared pieces of the group consumer's integration tests: a background producer of numbered
// records, a kafkats group member that records what it processed, the broker's view of a
// KIP-848 group (ConsumerGroupDescribe), and a wait with a generous deadline.

import { randomUUID } from 'node:crypto';
import {
  ConsumerGroupDescribeApi,
  createConsumerGroupDescribeRequest,
  KafkaError,
} from '@kafkats/codec';
import type { Cluster } from '@kafkats/meta';
import {
  Consumer,
  type ConsumerOptions,
  type PartitionBatch,
  Producer,
  ProducerFatalError,
} from '../../src/index.js';

/**
 * Waits until `done()`; throws, naming `what`, when `timeoutMs` passes first. `what` may be a
 * function, called then, to say how far things got.
 */
export async function waitFor(
  done: () => boolean,
  timeoutMs: number,
  what: string | (() => string) = 'a condition',
): Promise<true> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) {
      const said = typeof what === 'string' ? what : what();
      throw new Error(`gave up after ${timeoutMs} ms waiting for ${said}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/**
 * Produces `total` records valued "0".."total-1" in rounds of `perRound`, pausing between
 * rounds; record i goes to partition i % `partitions` so every member gets some. `stop()` ends
 * it after the current round.
 */
export function produceNumbered(
  cluster: Cluster,
  topic: string,
  total: number,
  partitions: number,
  options: { perRound?: number; pauseMs?: number } = {},
): { done: Promise<void>; sent: () => number; stop: () => void } {
  const perRound = options.perRound ?? 100;
  const pauseMs = options.pauseMs ?? 50;
  let sent = 0;
  let stopped = false;
  const producer = new Producer(cluster, { lingerMs: 5 });
  const done = (async () => {
    try {
      while (sent < total && !stopped) {
        const n = Math.min(perRound, total - sent);
        const from = sent;
        await Promise.all(
          Array.from({ length: n }, (_, i) =>
            producer.send({ topic, partition: (from + i) % partitions, value: String(from + i) }),
          ),
        );
        sent += n;
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      }
    } finally {
      await producer.close();
    }
  })();
  // A test that failed before awaiting `done` must not leave an unhandled rejection behind
  // (awaiting `done` still sees the error).
  done.catch(() => {});
  return {
    done,
    sent: () => sent,
    stop: () => {
      stopped = true;
    },
  };
}

/** Counts how often each value was processed, across every member of a test. */
export class Tally {
  readonly counts = new Map<string, number>();

  add(value: string): void {
    this.counts.set(value, (this.counts.get(value) ?? 0) + 1);
  }

  /** Values "0".."total-1" never processed. */
  missing(total: number): string[] {
    const out: string[] = [];
    for (let i = 0; i < total; i++) if (!this.counts.has(String(i))) out.push(String(i));
    return out;
  }

  /** Values processed more than once. */
  duplicates(): string[] {
    return [...this.counts].filter(([, n]) => n > 1).map(([v]) => v);
  }
}

/** A kafkats group member reading with `run({ eachBatch })` into a tally. */
export class Member {
  readonly consumer: Consumer;
  readonly running: Promise<void>;
  processed = 0;
  error: unknown;

  constructor(cluster: Cluster, options: ConsumerOptions, tally: Tally) {
    this.consumer = new Consumer(cluster, { autoOffsetReset: 'earliest', ...options });
    this.running = this.consumer
      .run({
        eachBatch: async (batch) => {
          for (const r of batch.records) {
            tally.add(r.value === null ? '' : Buffer.from(r.value).toString('utf8'));
            this.processed++;
          }
        },
      })
      .catch((error: unknown) => {
        this.error = error;
      });
  }

  async close(): Promise<void> {
    await this.consumer.close();
    await this.running;
  }
}

/** The coordinator's view of a KIP-848 group: member id to owned `topic-partition`s. */
export async function describeConsumerGroup(
  cluster: Cluster,
  groupId: string,
): Promise<Map<string, string[]>> {
  const response = await cluster.sendToCoordinator(
    'group',
    groupId,
    ConsumerGroupDescribeApi,
    createConsumerGroupDescribeRequest({ groupIds: [groupId], includeAuthorizedOperations: false }),
  );
  const group = response.groups[0];
  const members = new Map<string, string[]>();
  if (group === undefined || group.errorCode !== 0) return members;
  for (const m of group.members)
    members.set(
      m.memberId,
      m.assignment.topicPartitions
        .flatMap((t) => t.partitions.map((p) => `${t.topicName}-${p}`))
        .sort(),
    );
  return members;
}

export const labels = (ps: readonly { topic: string; partition: number }[]) =>
  ps.map((p) => `${p.topic}-${p.partition}`).sort();

/**
 * One exactly-once pipeline member: consumes `input` with read_committed and no auto-commit,
 * writes "out-<value>" to `output`, and puts the consumed offsets into the same transaction
 * (sendOffsetsToTransaction with the consumer's groupMetadata()). With `retryAborted`, a failed
 * transaction is aborted and reading goes on from the last committed batch, as an application
 * does when a broker dies under it; without, the first failure ends the member.
 */
export class Pipeline {
  readonly consumer: Consumer;
  readonly producer: Producer;
  readonly running: Promise<void>;
  transactions = 0;
  aborted = 0;
  /** What made the last transaction abort. */
  lastAbort: string | undefined;
  /** Errors run() rejected with that the member retried, and the last one. */
  runErrors = 0;
  lastRunError: string | undefined;
  /** Where #transform is now, and since when (for a failure message). */
  phase = 'idle';
  phaseSince = Date.now();
  error: unknown;

  constructor(
    cluster: Cluster,
    groupId: string,
    input: string,
    output: string,
    groupProtocol: 'consumer' | 'classic',
    options: { retryAborted?: boolean } = {},
  ) {
    const consumer = new Consumer(cluster, {
      groupId,
      groupProtocol,
      topics: [input],
      isolationLevel: 'read_committed',
      enableAutoCommit: false,
      autoOffsetReset: 'earliest',
    });
    const producer = new Producer(cluster, {
      transactionalId: `txn-${randomUUID().slice(0, 8)}`,
    });
    this.consumer = consumer;
    this.producer = producer;
    this.running = (async () => {
      await producer.initTransactions();
      for (;;) {
        try {
          await consumer.run({ eachBatch: (batch) => this.#transform(batch, output) });
          return;
        } catch (error) {
          this.runErrors++;
          this.lastRunError =
            error instanceof Error ? `${error.name}: ${error.message}` : String(error);
          // A fenced or fatal producer cannot go on; neither does a member without retries.
          if (!options.retryAborted || error instanceof ProducerFatalError || this.aborted > 50)
            throw error;
          // Not a microtask-only loop when run() rejects at once (a fatal consumer).
          await new Promise((r) => setTimeout(r, 10));
        }
      }
    })().catch((error: unknown) => {
      this.error = error;
    });
  }

  #at(phase: string): void {
    this.phase = phase;
    this.phaseSince = Date.now();
  }

  async #transform(batch: PartitionBatch, output: string): Promise<void> {
    this.#at(`begin ${batch.topic}-${batch.partition}@${batch.fetchOffset}`);
    this.producer.beginTransaction();
    let sends: Promise<unknown>[] = [];
    try {
      sends = batch.records.map((r) =>
        this.producer.send({
          topic: output,
          value: `out-${Buffer.from(r.value ?? Buffer.alloc(0)).toString('utf8')}`,
        }),
      );
      this.#at('sendOffsetsToTransaction');
      await this.producer.sendOffsetsToTransaction(
        [
          {
            topic: batch.topic,
            partition: batch.partition,
            offset: batch.nextOffset,
            leaderEpoch: batch.leaderEpoch,
          },
        ],
        this.consumer.groupMetadata(),
      );
      await this.#commit();
      this.#at('sends');
      await Promise.all(sends);
      this.transactions++;
      this.#at('idle');
    } catch (error) {
      this.lastAbort = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      this.#at('abortTransaction');
      await this.producer.abortTransaction().catch((e: unknown) => {
        this.lastRunError = `abortTransaction failed: ${e instanceof Error ? e.message : String(e)}`;
      });
      this.#at('abort: sends');
      await Promise.allSettled(sends);
      this.aborted++;
      this.#at('idle');
      throw error;
    }
  }

  /**
   * commitTransaction(), repeated while it fails retriably (a timed-out EndTxn leaves the
   * outcome unknown, and Kafka's TransactionManager then accepts only the commit again, as
   * the producer here does); any other failure goes to the caller, which aborts.
   */
  async #commit(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      this.#at(attempt === 1 ? 'commitTransaction' : `commitTransaction (attempt ${attempt})`);
      try {
        await this.producer.commitTransaction();
        return;
      } catch (error) {
        if (!(error instanceof KafkaError && error.retriable) || attempt >= 10) throw error;
        this.lastRunError = `commitTransaction repeated after: ${error.name}: ${error.message}`;
      }
    }
  }

  async close(): Promise<void> {
    await this.consumer.close();
    await this.running;
    await this.producer.close();
  }
}

/** Each pipeline's committed and aborted transactions and its last abort, for a failure message. */
export function describePipelines(pipelines: readonly Pipeline[]): string {
  return pipelines
    .map(
      (p, i) =>
        `pipeline ${i}: ${p.transactions} committed, ${p.aborted} aborted${p.lastAbort === undefined ? '' : ` (last: ${p.lastAbort})`}, ${p.runErrors} run errors${p.lastRunError === undefined ? '' : ` (last: ${p.lastRunError})`}, in ${p.phase} for ${Date.now() - p.phaseSince} ms, owns [${p.consumer
          .assignment()
          .map((a) => a.partition)
          .join(
            ',',
          )}] of the group's [${p.consumer.groupMetadata().generationId}/${p.consumer.groupMetadata().memberId.slice(-6)}]`,
    )
    .join('; ');
}

/** True while no pipeline failed; a failed one ends a wait at once with its error. */
export function healthy(pipelines: readonly Pipeline[]): true {
  for (const p of pipelines) if (p.error !== undefined) throw p.error;
  return true;
}
