// An OpenTelemetry bridge for kafkats's tracing channels, following OpenTelemetry's messaging
// semantic conventions for Kafka. kafkats depends on no OpenTelemetry package: the bridge takes
// a tracer and a meter shaped like @opentelemetry/api's, so an application passes its own:
//
//   import { metrics, trace } from '@opentelemetry/api';
//   const stop = bridgeToOpenTelemetry(trace.getTracer('kafkats'), metrics.getMeter('kafkats'));
//
// Spans: `send <topic>` (PRODUCER) per record batch, `poll <topic>` (CLIENT) per Fetch answer of a
// partition reader, and `<Api> <broker>` (CLIENT) per broker request. Metrics:
// `messaging.client.operation.duration` (s), `messaging.client.sent.messages` and
// `messaging.client.consumed.messages`.
import {
  type FetchTraceContext,
  fetchChannel,
  type ProduceTraceContext,
  produceChannel,
} from '@kafkats/client';
import { type RequestTraceContext, requestChannel } from '@kafkats/wire';

type Attributes = Record<string, string | number | boolean>;

/** The part of @opentelemetry/api's `Span` the bridge uses. */
export interface OtelSpan {
  setAttributes(attributes: Attributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: Error | string): unknown;
  end(): void;
}

/** The part of @opentelemetry/api's `Tracer` the bridge uses. */
export interface OtelTracer {
  startSpan(name: string, options?: { kind?: number; attributes?: Attributes }): OtelSpan;
}

/** The part of @opentelemetry/api's `Meter` the bridge uses. */
export interface OtelMeter {
  createHistogram(
    name: string,
    options?: { unit?: string; description?: string },
  ): { record(value: number, attributes?: Attributes): void };
  createCounter(
    name: string,
    options?: { unit?: string; description?: string },
  ): { add(value: number, attributes?: Attributes): void };
}

// @opentelemetry/api's SpanKind and SpanStatusCode values.
const SPAN_KIND_CLIENT = 2;
const SPAN_KIND_PRODUCER = 3;
const STATUS_ERROR = 2;

function errorType(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? code : error.name;
  }
  return '_OTHER';
}

/**
 * Subscribes to `kafkats:produce`, `kafkats:fetch` and `kafkats:request` and turns each trace
 * into a span (and the produce and fetch ones into metrics too). Returns the unsubscribe.
 */
export function bridgeToOpenTelemetry(tracer: OtelTracer, meter?: OtelMeter): () => void {
  const duration = meter?.createHistogram('messaging.client.operation.duration', {
    unit: 's',
    description: 'Duration of messaging operation initiated by a producer or consumer client.',
  });
  const sent = meter?.createCounter('messaging.client.sent.messages', { unit: '{message}' });
  const consumed = meter?.createCounter('messaging.client.consumed.messages', {
    unit: '{message}',
  });
  const spans = new WeakMap<object, OtelSpan>();
  const ignore = () => {};

  const finish = (context: object, error: unknown, attributes: Attributes) => {
    const span = spans.get(context);
    if (span === undefined) return;
    spans.delete(context);
    span.setAttributes(attributes);
    if (errorType(error) === 'ERR_KAFKA_ABORTED') {
      // The caller gave up (a reader stopped while its next Fetch was out): not a failure.
      span.setAttributes({ 'kafkats.aborted': true });
    } else if (error !== undefined) {
      span.setAttributes({ 'error.type': errorType(error) });
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: STATUS_ERROR, message: String((error as Error)?.message ?? error) });
    }
    span.end();
  };

  const produce = {
    start(message: unknown) {
      const p = message as ProduceTraceContext;
      spans.set(
        p,
        tracer.startSpan(`send ${p.topic}`, {
          kind: SPAN_KIND_PRODUCER,
          attributes: {
            'messaging.system': 'kafka',
            'messaging.operation.name': 'send',
            'messaging.operation.type': 'send',
            'messaging.destination.name': p.topic,
            'messaging.destination.partition.id': String(p.partition),
            'messaging.batch.message_count': p.records,
            'messaging.message.body.size': p.bytes,
            'kafkats.broker.node_id': p.nodeId,
            'kafkats.produce.attempt': p.attempt,
          },
        }),
      );
    },
    end: ignore,
    asyncStart: ignore,
    error: ignore,
    asyncEnd(message: unknown) {
      const p = message as ProduceTraceContext;
      const attributes: Attributes = {
        'messaging.system': 'kafka',
        'messaging.operation.name': 'send',
        'messaging.destination.name': p.topic,
        'messaging.destination.partition.id': String(p.partition),
      };
      if (p.baseOffset >= 0n) attributes['messaging.kafka.offset'] = Number(p.baseOffset);
      finish(p, p.outcome === 'ok' ? undefined : p.error, attributes);
      const metric: Attributes = {
        'messaging.system': 'kafka',
        'messaging.operation.name': 'send',
        'messaging.destination.name': p.topic,
        'messaging.destination.partition.id': String(p.partition),
        ...(p.outcome === 'ok' ? {} : { 'error.type': errorType(p.error) }),
      };
      duration?.record(p.durationMs / 1000, metric);
      if (p.outcome === 'ok') sent?.add(p.records, metric);
    },
  };

  const fetch = {
    start(message: unknown) {
      const f = message as FetchTraceContext;
      spans.set(
        f,
        tracer.startSpan(`poll ${f.topic}`, {
          kind: SPAN_KIND_CLIENT,
          attributes: {
            'messaging.system': 'kafka',
            'messaging.operation.name': 'poll',
            'messaging.operation.type': 'receive',
            'messaging.destination.name': f.topic,
            'messaging.destination.partition.id': String(f.partition),
            'messaging.kafka.offset': Number(f.fetchOffset),
            'kafkats.broker.node_id': f.nodeId,
          },
        }),
      );
    },
    end: ignore,
    asyncStart: ignore,
    error: ignore,
    asyncEnd(message: unknown) {
      const f = message as FetchTraceContext;
      finish(f, f.error, {
        'messaging.batch.message_count': f.records,
        'kafkats.fetch.lag': Number(f.lag),
        'kafkats.fetch.error_code': f.errorCode,
      });
      const metric: Attributes = {
        'messaging.system': 'kafka',
        'messaging.operation.name': 'poll',
        'messaging.destination.name': f.topic,
        'messaging.destination.partition.id': String(f.partition),
        ...(f.error === undefined ? {} : { 'error.type': errorType(f.error) }),
      };
      duration?.record(f.durationMs / 1000, metric);
      if (f.records > 0) consumed?.add(f.records, metric);
    },
  };

  const request = {
    start(message: unknown) {
      const r = message as RequestTraceContext;
      spans.set(
        r,
        tracer.startSpan(`${r.api} ${r.nodeId >= 0 ? r.nodeId : r.host}`, {
          kind: SPAN_KIND_CLIENT,
          attributes: {
            'messaging.system': 'kafka',
            'server.address': r.host,
            'server.port': r.port,
            'kafkats.request.api': r.api,
            'kafkats.broker.node_id': r.nodeId,
          },
        }),
      );
    },
    end: ignore,
    asyncStart: ignore,
    error: ignore,
    asyncEnd(message: unknown) {
      const r = message as RequestTraceContext;
      finish(r, r.error, {
        'kafkats.request.version': r.version,
        'kafkats.request.correlation_id': r.correlationId,
        'kafkats.request.bytes_out': r.bytesOut,
        'kafkats.request.bytes_in': r.bytesIn,
        'kafkats.request.error_code': r.errorCode,
      });
    },
  };

  produceChannel.subscribe(produce);
  fetchChannel.subscribe(fetch);
  requestChannel.subscribe(request);
  return () => {
    produceChannel.unsubscribe(produce);
    fetchChannel.unsubscribe(fetch);
    requestChannel.unsubscribe(request);
  };
}
