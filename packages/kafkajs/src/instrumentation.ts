import { EventEmitter } from 'node:events';
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
  readonly #logger: Logger;

  constructor(events: Readonly<Record<string, string>>, logger: Logger) {
    this.#names = new Set(Object.values(events));
    this.#logger = logger;
    this.#emitter.setMaxListeners(0);
  }

  on<T>(
    eventName: string,
    listener: (event: InstrumentationEvent<T>) => void,
  ): RemoveInstrumentationEventListener<T> {
    if (!this.#names.has(eventName)) {
      throw new KafkaJSNonRetriableError(
        `Event name should be one of ${[...this.#names].join(', ')}`,
      );
    }
    const wrapped = (event: InstrumentationEvent<T>) => {
      try {
        Promise.resolve(listener(event)).catch((e: unknown) => this.#failed(eventName, e));
      } catch (e) {
        this.#failed(eventName, e);
      }
    };
    this.#emitter.on(eventName, wrapped);
    return () => {
      this.#emitter.off(eventName, wrapped);
    };
  }

  /** Whether anyone listens for `eventName` (so a payload need not be built). */
  listening(eventName: string): boolean {
    return this.#emitter.listenerCount(eventName) > 0;
  }

  emit<T>(eventName: string, payload: T): void {
    if (this.#emitter.listenerCount(eventName) === 0) return;
    const event: InstrumentationEvent<T> = {
      id: String(nextId++),
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

/** The consumer's events. */
export const CONSUMER_EVENTS = Object.freeze({
  HEARTBEAT: 'consumer.heartbeat',
  COMMIT_OFFSETS: 'consumer.commit_offsets',
  GROUP_JOIN: 'consumer.group_join',
  FETCH_START: 'consumer.fetch_start',
  FETCH: 'consumer.fetch',
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
