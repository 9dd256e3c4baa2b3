import {
  AddOffsetsToTxnApi,
  AddPartitionsToTxnApi,
  type ApiDescriptor,
  createAddPartitionsToTxnRequestTopic,
  createTxnOffsetCommitRequestPartition,
  createTxnOffsetCommitRequestTopic,
  EndTxnApi,
  type EndTxnResponse,
  ErrorCode,
  InitProducerIdApi,
  KafkaError,
  ProtocolError,
  TxnOffsetCommitApi,
} from '@kafkats/codec';
import { classify, OperationTimeoutError } from '@kafkats/meta';
import { UnsupportedVersionError } from '@kafkats/wire';
import type { ProducerCluster } from '../producer-cluster.js';
import {
  ProducerFatalError,
  ProducerFencedError,
  TransactionAbortableError,
  TransactionStateError,
} from '../producer-errors.js';
import type {
  ResolvedProducerOptions,
  TransactionGroup,
  TransactionOffset,
} from '../producer-options.js';
import type { IdempotenceState } from './idempotence.js';
import { isFatalError } from './sender.js';

/**
 * Where a transactional producer is (Kafka's TransactionManager.State, reduced). `committing`
 * also covers a commit whose EndTxn failed retriably (its outcome unknown: only a repeated
 * commitTransaction() may follow), `aborting` an abort that failed (abortTransaction() again).
 */
export type TransactionState =
  | 'uninitialized'
  | 'ready'
  | 'in-transaction'
  | 'committing'
  | 'aborting'
  | 'fatal';

/** What the transaction manager asks of the producer around it. */
export interface TransactionHooks {
  /**
   * Waits until every record whose `send` was called so far is in a batch or refused (a send
   * waits for metadata or buffer room before its record is appended).
   */
  appended(): Promise<void>;
  /** Waits until every batch sent so far is done. */
  flush(): Promise<void>;
  /** Fails every batch not yet sent. */
  failQueued(error: Error): void;
  /** Lets the sender drain again (a partition joined the transaction). */
  wakeup(): void;
  /** The producer is unusable from now on. */
  onFatal(error: Error): void;
  /**
   * The transaction protocol changed between two transactions (a cluster upgraded to KIP-890's
   * second generation, or back): Produce goes at most at `produceVersionCap` from now on.
   */
  protocolChanged(produceVersionCap: number | undefined): void;
}

// Versions of the first-generation transaction protocol (AddPartitionsToTxn from the client):
// AddPartitionsToTxn v4+ is broker-to-broker, EndTxn v5, TxnOffsetCommit v5 and Produce v12
// belong to KIP-890's second generation, spoken only where the cluster finalizes it (`V2`).
const CAP = {
  addPartitions: 3,
  endTxn: 4,
  addOffsets: 4,
  txnOffsetCommit: 4,
  produce: 11,
  initProducerId: 5,
} as const;

// KIP-890's second generation (`transaction.version` 2+): Produce v12 adds its partition to the
// transaction, TxnOffsetCommit v5 its group, and EndTxn v5 answers with the next epoch. These are
// also the caps there: TxnOffsetCommit v6 names topics by id (KIP-1319), which this producer
// does not send.
const V2 = {
  produce: 12,
  endTxn: 5,
  txnOffsetCommit: 5,
} as const;
const PRODUCE: ApiDescriptor = { apiKey: 0, name: 'Produce' } as ApiDescriptor;

const FENCED: ReadonlySet<number> = new Set([
  ErrorCode.PRODUCER_FENCED,
  ErrorCode.INVALID_PRODUCER_EPOCH,
]);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Errors after which the transactional producer cannot go on, in a request's answer or in one
 * partition's entry of it (Kafka's TransactionManager handlers call `fatalError` on these):
 * fencing, authorization, an unsupported version.
 */
const isFatal = (error: unknown) =>
  (error instanceof ProtocolError && FENCED.has(error.errorCode)) || isFatalError(error);

/**
 * EndTxn answers after which the transaction can still be aborted (Kafka's EndTxnHandler:
 * `abortableErrorIfPossible` for a producer id the coordinator no longer knows, and KIP-890's
 * TRANSACTION_ABORTABLE); fencing and authorization are fatal as everywhere, and so is any
 * other answer that cannot be retried.
 */
const END_TXN_ABORTABLE: ReadonlySet<number> = new Set([
  ErrorCode.UNKNOWN_PRODUCER_ID,
  ErrorCode.INVALID_PRODUCER_ID_MAPPING,
  ErrorCode.TRANSACTION_ABORTABLE,
]);

/**
 * TxnOffsetCommit answers after which the transaction can still be aborted (Kafka's
 * TxnOffsetCommitHandler): the group refused (authorization, a fenced static member, a member
 * or generation it no longer knows) or KIP-890's TRANSACTION_ABORTABLE. Any other answer that
 * cannot be retried is fatal.
 */
const TXN_OFFSET_COMMIT_ABORTABLE: ReadonlySet<number> = new Set([
  ErrorCode.GROUP_AUTHORIZATION_FAILED,
  ErrorCode.FENCED_INSTANCE_ID,
  ErrorCode.UNKNOWN_MEMBER_ID,
  ErrorCode.ILLEGAL_GENERATION,
  ErrorCode.TRANSACTION_ABORTABLE,
]);

/** What beginTransaction() tells a caller in a state other than `ready`. */
const BEGIN_HINT: Partial<Record<TransactionState, string>> = {
  uninitialized: '; call initTransactions() first',
  committing:
    '; commitTransaction() has not completed: await it, or call it again after a retriable failure',
  aborting: '; abortTransaction() has not completed: await it, or call it again after a failure',
};

const isRetriable = (error: unknown) => error instanceof KafkaError && error.retriable;

/** A commitTransaction() or abortTransaction() under way. */
interface Completion {
  readonly commit: boolean;
  done: Promise<void>;
}

/**
 * The transactional producer's protocol with its transaction coordinator (found through
 * `cluster.sendToCoordinator('transaction', transactionalId)`). InitProducerId fences older
 * producers of the same id. Which generation of the protocol runs follows the cluster's
 * finalized `transaction.version`, as Kafka's TransactionManager decides it, at
 * initTransactions() and again at the end of every transaction:
 *
 * - first generation (below 2: Kafka 3.x, and 4.x clusters that keep it): each partition
 *   joins the running transaction by AddPartitionsToTxn before its first batch is sent;
 *   AddOffsetsToTxn then TxnOffsetCommit (to the group coordinator) put consumed offsets in
 *   it; EndTxn commits or aborts. After a failed batch the epoch is bumped by InitProducerId
 *   with the current id and epoch when the transaction aborts (KIP-360).
 * - second generation (KIP-890, 2 and above): Produce v12+ adds its partition itself and
 *   TxnOffsetCommit v5 its group, so neither AddPartitionsToTxn nor AddOffsetsToTxn is sent;
 *   EndTxn v5 answers with the epoch (or, once it would overflow, the producer id) of the next
 *   transaction, so every transaction runs under its own epoch and a late Produce of an ended
 *   one is fenced. No InitProducerId bump is needed after an abort.
 */
export class TransactionManager {
  state: TransactionState = 'uninitialized';
  readonly #cluster: ProducerCluster;
  readonly #options: ResolvedProducerOptions;
  readonly #id: string;
  readonly #idem: IdempotenceState;
  readonly #hooks: TransactionHooks;
  readonly #added = new Set<string>();
  readonly #pending = new Map<string, { topic: string; partition: number }>();
  /** The AddPartitionsToTxn rounds running now (`#addPartitions`), until they settle. */
  #adding: Promise<void> | undefined;
  /** True once the coordinator knows of the transaction (a partition or offsets were added). */
  #started = false;
  #abortable: Error | undefined;
  #fatal: Error | undefined;
  /** The commit or abort running now: a second call of the same kind joins it. */
  #completing: Completion | undefined;
  /**
   * EndTxn(commit) went out and no answer settled it (in flight, or it failed retriably): the
   * commit's outcome is unknown, so aborting is refused.
   */
  #commitSent = false;
  /** EndTxn(abort) of this transaction succeeded: a repeated abort only bumps the epoch. */
  #abortEnded = false;
  /** Produce version cap, known after initTransactions (none with the second generation). */
  produceVersion: number | undefined;
  /** KIP-890's second-generation protocol is in use (see the class comment). */
  #v2 = false;

  constructor(
    cluster: ProducerCluster,
    options: ResolvedProducerOptions,
    transactionalId: string,
    idem: IdempotenceState,
    hooks: TransactionHooks,
  ) {
    this.#cluster = cluster;
    this.#options = options;
    this.#id = transactionalId;
    this.#idem = idem;
    this.#hooks = hooks;
  }

  /** The error a send must fail with now, or undefined when sends are allowed. */
  sendError(): Error | undefined {
    if (this.#fatal !== undefined) return this.#fatal;
    if (this.#abortable !== undefined)
      return new TransactionAbortableError(
        `transaction of ${JSON.stringify(this.#id)} must be aborted: ${this.#abortable.message}`,
        this.#abortable,
      );
    if (this.state !== 'in-transaction')
      return new TransactionStateError(
        `send on transactional producer ${JSON.stringify(this.#id)} outside a transaction (state ${this.state}); call beginTransaction() first`,
      );
    return undefined;
  }

  /**
   * The error queued batches fail with now, or undefined: while the transaction aborts or must
   * abort, nothing of it is sent any more (see `partitionReady`), so a batch put back after a
   * retriable failure would otherwise stay queued and hold up the flush of commit or abort.
   */
  undrainedError(): Error | undefined {
    if (this.#fatal !== undefined) return this.#fatal;
    if (this.#abortable !== undefined) return this.sendError();
    if (this.state === 'aborting') return this.#abortedError();
    return undefined;
  }

  /** True when a partition's batches may be sent (it is in the transaction); else starts adding it. */
  partitionReady(topic: string, partition: number): boolean {
    if (this.#abortable !== undefined) return false;
    if (this.state !== 'in-transaction' && this.state !== 'committing') return false;
    const k = `${topic}\u0000${partition}`;
    if (this.#added.has(k)) return true;
    if (this.#v2) {
      // Its Produce adds it to the transaction (KIP-890): the transaction has begun.
      this.#added.add(k);
      this.#started = true;
      return true;
    }
    this.#pending.set(k, { topic, partition });
    void this.#addPartitions();
    return false;
  }

  /** A record of the transaction failed: only an abort can follow; unsent batches fail now. */
  onAbortable(error: Error): void {
    if (this.state === 'aborting' || this.state === 'fatal' || this.state === 'ready') return;
    if (this.#abortable !== undefined) return;
    this.#abortable = error;
    this.#hooks.failQueued(
      new TransactionAbortableError(
        `transaction of ${JSON.stringify(this.#id)} failed: ${error.message}`,
        error,
      ),
    );
  }

  /** The producer became unusable. */
  onFatal(error: Error): void {
    this.#fatal ??= error;
    this.state = 'fatal';
  }

  #checkNotFatal(): void {
    if (this.#fatal !== undefined) throw this.#fatal;
  }

  async initTransactions(): Promise<void> {
    this.#checkNotFatal();
    if (this.state !== 'uninitialized')
      throw new TransactionStateError(`initTransactions() called twice (state ${this.state})`);
    const deadline = Date.now() + this.#options.maxBlockMs;
    this.#v2 = await this.#secondGeneration();
    this.produceVersion = this.#v2 ? undefined : await this.#version(PRODUCE, CAP.produce);
    await this.#initProducerId(-1n, -1, deadline);
    this.state = 'ready';
  }

  /** The transaction protocol in use: 2 for KIP-890's second generation, else 1. */
  get protocolVersion(): 1 | 2 {
    return this.#v2 ? 2 : 1;
  }

  /**
   * Whether the cluster runs KIP-890's second generation: `transaction.version` finalized at 2
   * or more (Kafka's TransactionManager.isTransactionV2Enabled), and the broker serves the
   * versions it needs, as every broker that finalizes it does.
   */
  async #secondGeneration(): Promise<boolean> {
    const level = await this.#cluster.finalizedFeature('transaction.version');
    if (level === undefined || level < 2) return false;
    const [produce, endTxn, txnOffsetCommit] = await Promise.all(
      [PRODUCE.apiKey, EndTxnApi.apiKey, TxnOffsetCommitApi.apiKey].map((k) =>
        this.#cluster.negotiatedFor(k),
      ),
    );
    return (
      (produce ?? -1) >= V2.produce &&
      (endTxn ?? -1) >= V2.endTxn &&
      (txnOffsetCommit ?? -1) >= V2.txnOffsetCommit
    );
  }

  /**
   * After a transaction ended: follows a change of the cluster's `transaction.version` for the
   * next one, as Kafka's TransactionManager reads it at every transaction's end. Moving to the
   * second generation first bumps the epoch (InitProducerId), so nothing of a first-generation
   * transaction is taken for part of a second-generation one; if that bump fails, the producer
   * stays on the first generation and tries again after the next transaction.
   */
  async #followProtocol(): Promise<void> {
    let v2: boolean;
    try {
      v2 = await this.#secondGeneration();
    } catch {
      return;
    }
    if (v2 === this.#v2) return;
    if (v2) {
      try {
        await this.#initProducerId(
          this.#idem.producerId,
          this.#idem.producerEpoch,
          Date.now() + this.#options.maxBlockMs,
        );
      } catch {
        return;
      }
      this.produceVersion = undefined;
    } else {
      this.produceVersion = await this.#version(PRODUCE, CAP.produce);
    }
    this.#v2 = v2;
    this.#hooks.protocolChanged(this.produceVersion);
  }

  async #initProducerId(producerId: bigint, producerEpoch: number, deadline: number) {
    const response = await this.#call(
      'transaction',
      this.#id,
      InitProducerIdApi,
      () =>
        InitProducerIdApi.createRequest({
          transactionalId: this.#id,
          transactionTimeoutMs: this.#options.transactionTimeoutMs,
          producerId,
          producerEpoch,
        }),
      CAP.initProducerId,
      deadline,
    );
    this.#idem.setProducerIdAndEpoch(response.producerId, response.producerEpoch);
    this.#idem.resetSequences();
  }

  beginTransaction(): void {
    this.#checkNotFatal();
    if (this.state !== 'ready')
      throw new TransactionStateError(
        `beginTransaction() needs a ready producer (state ${this.state}${BEGIN_HINT[this.state] ?? ''})`,
      );
    this.#added.clear();
    this.#pending.clear();
    this.#started = false;
    this.#abortable = undefined;
    this.#commitSent = false;
    this.#abortEnded = false;
    this.state = 'in-transaction';
  }

  async sendOffsetsToTransaction(
    offsets: readonly TransactionOffset[],
    group: TransactionGroup,
  ): Promise<void> {
    const refused = this.sendError();
    if (refused !== undefined) throw refused;
    const deadline = Date.now() + this.#options.maxBlockMs;
    // The second generation's TxnOffsetCommit adds the group itself (KIP-890).
    if (!this.#v2)
      await this.#call(
        'transaction',
        this.#id,
        AddOffsetsToTxnApi,
        () =>
          AddOffsetsToTxnApi.createRequest({
            transactionalId: this.#id,
            producerId: this.#idem.producerId,
            producerEpoch: this.#idem.producerEpoch,
            groupId: group.groupId,
          }),
        CAP.addOffsets,
        deadline,
      ).catch((error: unknown) => this.#abortableFrom(error));
    this.#started = true;
    // Only the partitions that failed go again, as Kafka's TxnOffsetCommitHandler keeps the
    // pending ones and drops those the coordinator accepted.
    let pending = offsets;
    for (;;) {
      const topics = new Map<string, ReturnType<typeof createTxnOffsetCommitRequestTopic>>();
      for (const o of pending) {
        let t = topics.get(o.topic);
        if (t === undefined) {
          t = createTxnOffsetCommitRequestTopic({ name: o.topic });
          topics.set(o.topic, t);
        }
        t.partitions.push(
          createTxnOffsetCommitRequestPartition({
            partitionIndex: o.partition,
            committedOffset: o.offset,
            committedLeaderEpoch: o.leaderEpoch ?? -1,
            committedMetadata: o.metadata ?? '',
          }),
        );
      }
      const response = await this.#call(
        'group',
        group.groupId,
        TxnOffsetCommitApi,
        () =>
          TxnOffsetCommitApi.createRequest({
            transactionalId: this.#id,
            groupId: group.groupId,
            producerId: this.#idem.producerId,
            producerEpoch: this.#idem.producerEpoch,
            generationIdOrMemberEpoch: group.generationId ?? -1,
            memberId: group.memberId ?? '',
            groupInstanceId: group.groupInstanceId ?? null,
            topics: [...topics.values()],
          }),
        this.#v2 ? V2.txnOffsetCommit : CAP.txnOffsetCommit,
        deadline,
      ).catch((error: unknown) => this.#abortableFrom(error));
      const errors: ProtocolError[] = [];
      // Only what the coordinator accepted leaves the pending set (Kafka's
      // TxnOffsetCommitHandler): a partition the answer does not name goes again.
      const accepted = new Set<string>();
      for (const t of response.topics) {
        for (const p of t.partitions) {
          if (p.errorCode === 0) {
            accepted.add(`${t.name}\u0000${p.partitionIndex}`);
            continue;
          }
          errors.push(
            ProtocolError.fromCode(
              p.errorCode,
              `TxnOffsetCommit for group ${JSON.stringify(group.groupId)}, ${t.name}-${p.partitionIndex}`,
            ),
          );
        }
      }
      const unanswered = pending.filter((o) => !accepted.has(`${o.topic}\u0000${o.partition}`));
      if (unanswered.length === 0) return;
      if (errors.length === 0) {
        // Left out of the answer: sent again, as a retriable failure is.
        const missing = new KafkaError(
          'ERR_KAFKA_PRODUCER_RESPONSE_INCOMPLETE',
          `TxnOffsetCommit for group ${JSON.stringify(group.groupId)}: no answer for ${unanswered.length} partition(s)`,
          { retriable: true },
        );
        if (Date.now() >= deadline) this.#abortableFrom(missing);
        pending = unanswered;
        await sleep(this.#options.retryBackoffMs);
        continue;
      }
      const fatal = errors.find(isFatal);
      if (fatal !== undefined) this.#fatalFrom(fatal);
      for (const e of errors) this.#coordinatorMoved(e, 'group', group.groupId);
      // TxnOffsetCommitHandler also looks the coordinator up again after REQUEST_TIMED_OUT.
      if (errors.some((e) => e.errorCode === ErrorCode.REQUEST_TIMED_OUT))
        this.#cluster.invalidateCoordinator('group', group.groupId);
      const error = errors.find((e) => !e.retriable) ?? errors[0]!;
      // TxnOffsetCommitHandler: an answer it can neither retry nor abort on is fatal.
      if (!error.retriable && !TXN_OFFSET_COMMIT_ABORTABLE.has(error.errorCode))
        this.#fatalFrom(error);
      if (error.retriable && Date.now() < deadline) {
        pending = unanswered;
        await sleep(this.#options.retryBackoffMs);
        continue;
      }
      this.#abortableFrom(error);
    }
  }

  /**
   * Flushes, then EndTxn(commit). A retriable failure of EndTxn (the coordinator unreachable or
   * silent until `maxBlockMs`) leaves the outcome unknown: the state stays `committing` and only
   * commitTransaction() may follow, which sends EndTxn(commit) again (the coordinator answers a
   * repeated one like the first), as Java's TransactionManager re-awaits a timed-out commit.
   */
  async commitTransaction(): Promise<void> {
    const running = this.#completing;
    if (running?.commit === true) return running.done;
    this.#checkNotFatal();
    if (this.#abortable !== undefined) throw this.sendError();
    const repeat = this.state === 'committing' && running === undefined;
    if (this.state !== 'in-transaction' && !repeat)
      throw new TransactionStateError(
        `commitTransaction() outside a transaction (state ${this.state})`,
      );
    return this.#complete(true, (self) => (repeat ? this.#endCommit() : this.#commit(self)));
  }

  /**
   * Aborts. A step that fails without making the producer fatal (EndTxn(abort) or the epoch
   * bump timing out) leaves the state `aborting`; abortTransaction() then does what is
   * left (Java's TransactionManager lets a timed-out abort be called again). Refused once a
   * commit's EndTxn went out: its outcome is unknown, and only the commit may be repeated.
   */
  async abortTransaction(): Promise<void> {
    const running = this.#completing;
    if (running?.commit === false) return running.done;
    this.#checkNotFatal();
    if (this.state === 'committing' && this.#commitSent)
      throw new TransactionStateError(
        `abortTransaction() after commitTransaction() sent EndTxn(commit) for ${JSON.stringify(this.#id)}, whose outcome is unknown; call commitTransaction() again`,
      );
    if (this.state !== 'in-transaction' && this.state !== 'committing' && this.state !== 'aborting')
      throw new TransactionStateError(
        `abortTransaction() outside a transaction (state ${this.state})`,
      );
    return this.#complete(false, () => this.#abort());
  }

  /** Runs a commit or abort as the one under way; a later abort may take over from a commit. */
  #complete(commit: boolean, work: (self: Completion) => Promise<void>): Promise<void> {
    const self: Completion = { commit, done: Promise.resolve() };
    this.#completing = self;
    self.done = work(self).finally(() => {
      if (this.#completing === self) this.#completing = undefined;
    });
    return self.done;
  }

  async #commit(self: Completion): Promise<void> {
    // A record whose send() came before this call belongs to the transaction even when it is
    // still waiting for its topic's metadata: it is appended (while sends are allowed) before
    // the commit begins, as Java's send() returns only once its record is in the accumulator.
    await this.#hooks.appended();
    this.#checkNotFatal();
    if (this.#completing !== self) throw this.#abortedError();
    if (this.#abortable !== undefined) throw this.sendError();
    this.state = 'committing';
    await this.#hooks.flush();
    this.#checkNotFatal();
    // abortTransaction() may take over while the commit flushes, before EndTxn(commit) is sent.
    if (this.#completing !== self) throw this.#abortedError();
    if (this.#abortable !== undefined) {
      this.state = 'in-transaction';
      throw this.sendError();
    }
    await this.#endCommit();
  }

  async #endCommit(): Promise<void> {
    if (this.#started) {
      this.#commitSent = true;
      try {
        await this.#endTxn(true);
      } catch (error) {
        this.#checkNotFatal();
        // Timed out or unreachable: the commit may have happened; stay `committing`.
        if (isRetriable(error)) throw error;
        this.#commitSent = false;
        this.state = 'in-transaction';
        this.#abortable ??= error as Error;
        throw this.sendError();
      }
    }
    this.#commitSent = false;
    await this.#followProtocol();
    this.state = 'ready';
  }

  async #abort(): Promise<void> {
    this.state = 'aborting';
    this.#pending.clear();
    this.#hooks.failQueued(this.#abortedError());
    await this.#hooks.flush();
    // An AddPartitionsToTxn in flight may still add a partition (and start the transaction at
    // the coordinator): EndTxn(abort) is decided on its outcome, as Kafka's TransactionManager
    // sends one transactional request at a time. With the pending partitions cleared above, no
    // further round begins.
    await this.#adding;
    this.#checkNotFatal();
    if (this.#started && !this.#abortEnded) {
      await this.#endTxn(false);
      this.#abortEnded = true;
    }
    if (this.#idem.transactionalBumpRequired && !this.#v2) {
      // KIP-360: a batch failed after being sent, so its sequences may have a gap; a new epoch
      // lets every partition start again at 0. The second generation's EndTxn gave one already.
      await this.#initProducerId(
        this.#idem.producerId,
        this.#idem.producerEpoch,
        Date.now() + this.#options.maxBlockMs,
      );
    }
    this.#abortable = undefined;
    await this.#followProtocol();
    this.state = 'ready';
  }

  #abortedError(): TransactionAbortableError {
    return new TransactionAbortableError(`transaction of ${JSON.stringify(this.#id)} was aborted`);
  }

  async #endTxn(committed: boolean) {
    let response: EndTxnResponse;
    try {
      response = await this.#sendEndTxn(committed);
    } catch (error) {
      // Kafka's EndTxnHandler: an answer it neither retries nor turns into an abortable error
      // (INVALID_TXN_STATE, or any code it does not expect) is fatal.
      if (
        error instanceof ProtocolError &&
        !error.retriable &&
        !END_TXN_ABORTABLE.has(error.errorCode)
      ) {
        this.#fatalFrom(error);
      }
      throw error;
    }
    // EndTxn v5+ names the producer id and epoch of the next transaction (KIP-890): every
    // partition starts again at sequence 0 under them.
    if (response.producerId >= 0n) {
      this.#idem.setProducerIdAndEpoch(response.producerId, response.producerEpoch);
      this.#idem.resetSequences();
    }
    return response;
  }

  #sendEndTxn(committed: boolean): Promise<EndTxnResponse> {
    return this.#call(
      'transaction',
      this.#id,
      EndTxnApi,
      () =>
        EndTxnApi.createRequest({
          transactionalId: this.#id,
          producerId: this.#idem.producerId,
          producerEpoch: this.#idem.producerEpoch,
          committed,
        }),
      this.#v2 ? V2.endTxn : CAP.endTxn,
      Date.now() + this.#options.maxBlockMs,
    );
  }

  /**
   * Adds the pending partitions to the transaction, one request at a time. A round and its
   * retries (partitions pending meanwhile join it) have `maxBlockMs`, as every other coordinator
   * call here; then the transaction is abortable, where Java's ends up once the records waiting
   * for the partition expire (its only bound on AddPartitionsToTxn).
   */
  async #addPartitions(): Promise<void> {
    if (this.#adding !== undefined) return;
    let settle!: () => void;
    this.#adding = new Promise((resolve) => {
      settle = resolve;
    });
    try {
      let deadline = Date.now() + this.#options.maxBlockMs;
      while (this.#pending.size > 0 && this.#abortable === undefined && this.#fatal === undefined) {
        const batch = new Map(this.#pending);
        const byTopic = new Map<string, number[]>();
        for (const { topic, partition } of batch.values()) {
          const list = byTopic.get(topic) ?? [];
          list.push(partition);
          byTopic.set(topic, list);
        }
        let response: Awaited<ReturnType<typeof this.addPartitionsRequest>>;
        try {
          response = await this.addPartitionsRequest(byTopic, deadline);
        } catch (error) {
          if (this.#fatal === undefined) this.onAbortable(error as Error);
          return;
        }
        let retry: ProtocolError | undefined;
        let backoffMs = 0;
        for (const t of response.resultsByTopicV3AndBelow) {
          for (const p of t.resultsByPartition) {
            const k = `${t.name}\u0000${p.partitionIndex}`;
            if (p.partitionErrorCode === 0) {
              this.#added.add(k);
              this.#pending.delete(k);
              this.#started = true;
              continue;
            }
            const error = ProtocolError.fromCode(
              p.partitionErrorCode,
              `AddPartitionsToTxn for ${t.name}-${p.partitionIndex}`,
            );
            // Not #fatalFrom: nothing awaits this loop, so it must not reject.
            if (isFatal(error)) {
              this.#becomeFatal(error);
              return;
            }
            this.#coordinatorMoved(error, 'transaction', this.#id);
            // OPERATION_NOT_ATTEMPTED: another partition of the request failed first.
            if (error.retriable || p.partitionErrorCode === ErrorCode.OPERATION_NOT_ATTEMPTED) {
              if (retry === undefined || retry.errorCode === ErrorCode.OPERATION_NOT_ATTEMPTED)
                retry = error;
              backoffMs = Math.max(backoffMs, this.#addPartitionsBackoffMs(p.partitionErrorCode));
            } else {
              this.onAbortable(error);
              return;
            }
          }
        }
        this.#hooks.wakeup();
        if (retry === undefined) {
          deadline = Date.now() + this.#options.maxBlockMs;
          continue;
        }
        if (Date.now() + backoffMs >= deadline) {
          this.onAbortable(
            new OperationTimeoutError(
              `AddPartitionsToTxn for ${JSON.stringify(this.#id)}: partitions not added within maxBlockMs (${this.#options.maxBlockMs} ms); last error: ${retry.message}`,
              retry,
            ),
          );
          return;
        }
        await sleep(backoffMs);
      }
    } finally {
      this.#adding = undefined;
      settle();
    }
  }

  /**
   * The wait before a retry: `retryBackoffMs`, but 20 ms for CONCURRENT_TRANSACTIONS on the
   * transaction's first partitions, the previous transaction's end clearing in a few ms (Kafka's
   * AddPartitionsToTxnHandler.maybeOverrideRetryBackoffMs). Partitions not attempted add none.
   */
  #addPartitionsBackoffMs(errorCode: number): number {
    if (errorCode === ErrorCode.OPERATION_NOT_ATTEMPTED) return 0;
    if (errorCode === ErrorCode.CONCURRENT_TRANSACTIONS && this.#added.size === 0) return 20;
    return this.#options.retryBackoffMs;
  }

  /**
   * An error for one partition that a moved coordinator gives (NOT_COORDINATOR,
   * COORDINATOR_NOT_AVAILABLE) drops the cached coordinator, so the retry looks it up again
   * (Kafka's AddPartitionsToTxnHandler and TxnOffsetCommitHandler call `lookupCoordinator`).
   * The cluster's dispatcher does the same for an error of the whole answer; `classify` decides
   * for both.
   */
  #coordinatorMoved(error: ProtocolError, kind: 'transaction' | 'group', key: string): void {
    if (classify(error, 'coordinator').refreshCoordinator)
      this.#cluster.invalidateCoordinator(kind, key);
  }

  addPartitionsRequest(byTopic: Map<string, number[]>, deadline: number) {
    return this.#call(
      'transaction',
      this.#id,
      AddPartitionsToTxnApi,
      () =>
        AddPartitionsToTxnApi.createRequest({
          v3AndBelowTransactionalId: this.#id,
          v3AndBelowProducerId: this.#idem.producerId,
          v3AndBelowProducerEpoch: this.#idem.producerEpoch,
          v3AndBelowTopics: [...byTopic].map(([name, partitions]) =>
            createAddPartitionsToTxnRequestTopic({ name, partitions }),
          ),
        }),
      CAP.addPartitions,
      deadline,
    );
  }

  /** The highest version both sides support, at most `cap`. */
  async #version(api: ApiDescriptor, cap: number): Promise<number> {
    const negotiated = await this.#cluster.negotiatedFor(api.apiKey);
    if (negotiated === undefined) {
      const error = new UnsupportedVersionError(`the brokers do not support ${api.name}`);
      this.#fatalFrom(error);
    }
    return Math.min(negotiated!, cap);
  }

  /**
   * One coordinator request, retried on retriable errors (CONCURRENT_TRANSACTIONS while the
   * coordinator finishes an earlier transaction, a moving coordinator) until `deadline`.
   * Fencing and authorization errors make the producer fatal.
   */
  async #call<Req, Res>(
    kind: 'transaction' | 'group',
    key: string,
    api: ApiDescriptor<Req, Res>,
    build: () => Req,
    cap: number,
    deadline: number,
  ): Promise<Res> {
    const version = await this.#version(api as ApiDescriptor, cap);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#cluster.sendToCoordinator(kind, key, api, build, {
          version,
          operationTimeoutMs: Math.max(1, deadline - Date.now()),
        });
      } catch (error) {
        this.#checkNotFatal();
        if (isFatal(error)) this.#fatalFrom(error as Error);
        const retriable = isRetriable(error);
        const wait = Math.min(
          this.#options.retryBackoffMaxMs,
          this.#options.retryBackoffMs * 2 ** (attempt - 1),
        );
        if (!retriable || Date.now() + wait >= deadline) throw error;
        await sleep(wait);
      }
    }
  }

  #abortableFrom(error: unknown): never {
    this.#checkNotFatal();
    const e = error instanceof Error ? error : new Error(String(error));
    this.onAbortable(e);
    throw this.sendError();
  }

  #fatalFrom(error: Error): never {
    throw this.#becomeFatal(error);
  }

  /** Makes the producer fatal because of `error`; returns the error calls fail with from now on. */
  #becomeFatal(error: Error): ProducerFatalError {
    const fatal =
      error instanceof ProtocolError && FENCED.has(error.errorCode)
        ? new ProducerFencedError(
            `transactional producer ${JSON.stringify(this.#id)} was fenced by a newer producer with the same transactionalId`,
            error,
          )
        : new ProducerFatalError(
            `transactional producer ${JSON.stringify(this.#id)} cannot continue: ${error.message}`,
            error,
          );
    this.onFatal(fatal);
    this.#hooks.onFatal(fatal);
    return fatal;
  }
}
