import { EventEmitter } from 'node:events';
import { RequestTimeoutError } from '@kafkats/client';
import { type RequestTraceContext, requestChannel } from '@kafkats/wire';
import { KafkaJSNonRetriableError } from './errors.js';
import type { Logger } from './logger.js';

/** One instrumentation event, as kafkajs hands it to a listener. */
export interface InstrumentationEvent<T> {
  id: string;
  type: string;
  timestamp: number;
  payload: T;
}

/** What `client.on(...)` returns: call it to remove the listener. */
// biome-ignore lint/correctness/noUnusedVariables: kafkajs's type takes the event's payload type
export type RemoveInstrumentationEventListener<T> = () => void;

let nextId = 0;

/**
 * The events one client emits (`consumer.events.*`, `producer.events.*`, `admin.events.*`).
 * `on` refuses a name the client does not emit, as kafkajs does; a listener that throws or
 * rejects is logged, never propagated into the client.
 */
export class InstrumentationEmitter {
  readonly #emitter = new EventEmitter();
  readonly #names: ReadonlySet<string>;
  readonly #keys: readonly string[];
  readonly #logger: Logger;
  /** The client's REQUEST and REQUEST_TIMEOUT names, when it has them. */
  readonly #network: { readonly request: string; readonly timeout: string } | undefined;
  #requestHandlers: { asyncEnd: (ctx: RequestTraceContext) => void } | undefined;

  /**
   * @param events the names the client emits
   * @param network the client's request event names: a listener for one of them subscribes to
   *   kafkats's `kafkats:request` trace channel, filtered to connections whose `traceOwner` is
   *   this emitter (pass it as the client's cluster's trace owner); no listener, no subscription
   */
  constructor(
    events: Readonly<Record<string, string>>,
    logger: Logger,
    network?: { readonly request: string; readonly timeout: string },
  ) {
    this.#names = new Set(Object.values(events));
    // kafkajs names the events by key: `producer.events.CONNECT`, ...
    this.#keys = Object.entries(events).map(
      ([key, name]) => `${name.slice(0, name.indexOf('.'))}.events.${key}`,
    );
    this.#logger = logger;
    this.#network = network;
    this.#emitter.setMaxListeners(0);
  }

  on<T>(
    eventName: string,
    listener: (event: InstrumentationEvent<T>) => void,
  ): RemoveInstrumentationEventListener<T> {
    if (!this.#names.has(eventName)) {
      throw new KafkaJSNonRetriableError(`Event name should be one of ${this.#keys.join(', ')}`);
    }
    const wrapped = (event: InstrumentationEvent<T>) => {
      try {
        Promise.resolve(listener(event)).catch((e: unknown) => this.#failed(eventName, e));
      } catch (e) {
        this.#failed(eventName, e);
      }
    };
    this.#emitter.on(eventName, wrapped);
    this.#followRequests();
    return () => {
      this.#emitter.off(eventName, wrapped);
      this.#followRequests();
    };
  }

  /** Stops following requests (the client disconnected for good); listeners stay registered. */
  close(): void {
    if (this.#requestHandlers !== undefined)
      requestChannel.unsubscribe(this.#requestHandlers as never);
    this.#requestHandlers = undefined;
  }

  /** Subscribes to request traces while someone listens for a request event, and only then. */
  #followRequests(): void {
    const network = this.#network;
    if (network === undefined) return;
    const wanted =
      this.#emitter.listenerCount(network.request) + this.#emitter.listenerCount(network.timeout) >
      0;
    if (wanted && this.#requestHandlers === undefined) {
      this.#requestHandlers = { asyncEnd: (ctx) => this.#onRequest(network, ctx) };
      requestChannel.subscribe(this.#requestHandlers as never);
    } else if (!wanted) this.close();
  }

  /**
   * One of this client's requests settled: kafkajs's REQUEST (answered) or REQUEST_TIMEOUT
   * payload. Times are epoch ms as kafkajs gives them: `createdAt` when the request was handed
   * to the connection, `sentAt` when it was written to the socket.
   */
  #onRequest(network: { request: string; timeout: string }, ctx: RequestTraceContext): void {
    if (ctx.owner !== this) return;
    const timedOut = ctx.outcome === 'error' && ctx.error instanceof RequestTimeoutError;
    if (ctx.outcome !== 'ok' && !timedOut) return;
    const nowPerf = performance.now();
    const nowMs = Date.now();
    const createdAt = Math.round(nowMs - ctx.durationMs);
    const sentAt = ctx.writtenAt < 0 ? createdAt : Math.round(nowMs - (nowPerf - ctx.writtenAt));
    const common = {
      broker: `${ctx.host}:${ctx.port}`,
      clientId: ctx.clientId,
      correlationId: ctx.correlationId,
      createdAt,
      sentAt,
      pendingDuration: sentAt - createdAt,
    };
    const api = { apiName: ctx.api, apiKey: ctx.apiKey, apiVersion: ctx.version };
    if (timedOut) this.emit(network.timeout, { ...common, ...api });
    else
      this.emit(network.request, {
        ...common,
        size: ctx.bytesIn,
        duration: nowMs - sentAt,
        ...api,
      });
  }

  /** Whether anyone listens for `eventName` (so a payload need not be built). */
  listening(eventName: string): boolean {
    return this.#emitter.listenerCount(eventName) > 0;
  }

  emit<T>(eventName: string, payload: T): void {
    if (this.#emitter.listenerCount(eventName) === 0) return;
    const event: InstrumentationEvent<T> = {
      // kafkajs's ids are numbers at run time, though its type says string.
      id: nextId++ as unknown as string,
      type: eventName,
      timestamp: Date.now(),
      payload,
    };
    this.#emitter.emit(eventName, event);
  }

  #failed(eventName: string, e: unknown): void {
    this.#logger.error(
      `Failed to execute listener: ${e instanceof Error ? e.message : String(e)}`,
      {
        eventName,
        stack: e instanceof Error ? e.stack : undefined,
      },
    );
  }
}

/** The producer's events. */
export const PRODUCER_EVENTS = Object.freeze({
  CONNECT: 'producer.connect',
  DISCONNECT: 'producer.disconnect',
  REQUEST: 'producer.network.request',
  REQUEST_TIMEOUT: 'producer.network.request_timeout',
  REQUEST_QUEUE_SIZE: 'producer.network.request_queue_size',
});

/** The consumer's events, in kafkajs's order (its unknown-name error lists them so). */
export const CONSUMER_EVENTS = Object.freeze({
  HEARTBEAT: 'consumer.heartbeat',
  COMMIT_OFFSETS: 'consumer.commit_offsets',
  GROUP_JOIN: 'consumer.group_join',
  FETCH: 'consumer.fetch',
  FETCH_START: 'consumer.fetch_start',
  START_BATCH_PROCESS: 'consumer.start_batch_process',
  END_BATCH_PROCESS: 'consumer.end_batch_process',
  CONNECT: 'consumer.connect',
  DISCONNECT: 'consumer.disconnect',
  STOP: 'consumer.stop',
  CRASH: 'consumer.crash',
  REBALANCING: 'consumer.rebalancing',
  RECEIVED_UNSUBSCRIBED_TOPICS: 'consumer.received_unsubscribed_topics',
  REQUEST: 'consumer.network.request',
  REQUEST_TIMEOUT: 'consumer.network.request_timeout',
  REQUEST_QUEUE_SIZE: 'consumer.network.request_queue_size',
});

/** The admin client's events. */
export const ADMIN_EVENTS = Object.freeze({
  CONNECT: 'admin.connect',
  DISCONNECT: 'admin.disconnect',
  REQUEST: 'admin.network.request',
  REQUEST_TIMEOUT: 'admin.network.request_timeout',
  REQUEST_QUEUE_SIZE: 'admin.network.request_queue_size',
});
