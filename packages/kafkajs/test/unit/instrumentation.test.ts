import { RequestTimeoutError } from '@kafkats/client';
import { type RequestTraceContext, requestChannel } from '@kafkats/wire';
import { describe, expect, it } from 'vitest';
import { KafkaJSNonRetriableError } from '../../src/errors.js';
import {
  InstrumentationEmitter,
  type InstrumentationEvent,
  PRODUCER_EVENTS,
} from '../../src/instrumentation.js';
import { createLogger, type LogEntry, logLevel } from '../../src/logger.js';

const network = { request: PRODUCER_EVENTS.REQUEST, timeout: PRODUCER_EVENTS.REQUEST_TIMEOUT };

function context(owner: unknown, over: Partial<RequestTraceContext> = {}): RequestTraceContext {
  return {
    broker: 'broker 1 (h:9092)',
    nodeId: 1,
    host: 'h',
    port: 9092,
    clientId: 'app',
    owner,
    apiKey: 0,
    api: 'Produce',
    version: 11,
    correlationId: 7,
    bytesOut: 100,
    bytesIn: 60,
    errorCode: 0,
    writtenAt: performance.now(),
    throttleTimeMs: 0,
    throttledUntil: -1,
    outcome: 'ok',
    durationMs: 3,
    ...over,
  };
}

/** Publishes one settled request trace, as a BrokerConnection does. */
async function trace(ctx: RequestTraceContext): Promise<void> {
  await requestChannel
    .tracePromise(
      () => (ctx.outcome === 'ok' ? Promise.resolve(null) : Promise.reject(ctx.error)),
      ctx,
    )
    .catch(() => {});
}

describe('instrumentation events', () => {
  it('refuses an event name the client does not emit, typed', () => {
    const e = new InstrumentationEmitter(
      PRODUCER_EVENTS,
      createLogger({ level: logLevel.NOTHING }),
    );
    expect(() => e.on('consumer.heartbeat', () => {})).toThrow(KafkaJSNonRetriableError);
    expect(() => e.on('producer.nope', () => {})).toThrow(
      'Event name should be one of producer.events.CONNECT, producer.events.DISCONNECT, producer.events.REQUEST, producer.events.REQUEST_TIMEOUT, producer.events.REQUEST_QUEUE_SIZE',
    );
  });

  it('hands listeners kafkajs events, and logs a listener that throws without propagating', async () => {
    const logged: LogEntry[] = [];
    const logger = createLogger({ logCreator: () => (entry) => logged.push(entry) });
    const e = new InstrumentationEmitter(PRODUCER_EVENTS, logger);
    const seen: InstrumentationEvent<unknown>[] = [];
    e.on(PRODUCER_EVENTS.CONNECT, (ev) => seen.push(ev));
    e.on(PRODUCER_EVENTS.CONNECT, () => {
      throw new Error('listener bug');
    });
    expect(() => e.emit(PRODUCER_EVENTS.CONNECT, null)).not.toThrow();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ type: 'producer.connect', payload: null });
    expect(typeof seen[0]?.id).toBe('number'); // as kafkajs's, whatever its type says
    expect(typeof seen[0]?.timestamp).toBe('number');
    expect(logged.map((l) => l.log.message)).toEqual(['Failed to execute listener: listener bug']);
  });

  it("emits REQUEST for its own connections' answered requests only, while someone listens", async () => {
    const e = new InstrumentationEmitter(
      PRODUCER_EVENTS,
      createLogger({ level: logLevel.NOTHING }),
      network,
    );
    const seen: InstrumentationEvent<Record<string, unknown>>[] = [];
    const before = requestChannel.hasSubscribers;
    const remove = e.on(PRODUCER_EVENTS.REQUEST, (ev) => seen.push(ev as never));
    expect(requestChannel.hasSubscribers).toBe(true);
    await trace(context(e));
    await trace(context({ another: 'client' }));
    expect(seen).toHaveLength(1);
    expect(seen[0]?.payload).toMatchObject({
      broker: 'h:9092',
      clientId: 'app',
      correlationId: 7,
      size: 60,
      apiName: 'Produce',
      apiKey: 0,
      apiVersion: 11,
    });
    const p = seen[0]?.payload as { createdAt: number; sentAt: number; pendingDuration: number };
    expect(p.pendingDuration).toBe(p.sentAt - p.createdAt);
    remove();
    expect(requestChannel.hasSubscribers).toBe(before);
    await trace(context(e));
    expect(seen).toHaveLength(1);
  });

  it('emits REQUEST_TIMEOUT for a request that timed out, and nothing for other failures', async () => {
    const e = new InstrumentationEmitter(
      PRODUCER_EVENTS,
      createLogger({ level: logLevel.NOTHING }),
      network,
    );
    const timeouts: InstrumentationEvent<Record<string, unknown>>[] = [];
    const requests: unknown[] = [];
    e.on(PRODUCER_EVENTS.REQUEST_TIMEOUT, (ev) => timeouts.push(ev as never));
    e.on(PRODUCER_EVENTS.REQUEST, (ev) => requests.push(ev));
    await trace(
      context(e, {
        outcome: 'error',
        error: new RequestTimeoutError('broker 1', 'Produce', 30000),
      }),
    );
    await trace(context(e, { outcome: 'error', error: new Error('connection lost') }));
    expect(requests).toEqual([]);
    expect(timeouts).toHaveLength(1);
    expect(timeouts[0]?.payload).toMatchObject({ broker: 'h:9092', apiName: 'Produce' });
    e.close();
  });
});
