import { apiDescriptor } from '@kafkats/codec';
import { Histogram, type HistogramSnapshot } from './histogram.js';

/** Counters and latencies of the connections to one broker, as {@link ConnectionMetrics.snapshot} reports them. */
export interface ConnectionMetricsSnapshot {
  /** Connects that reached ready (dedicated connections included). */
  readonly connects: number;
  /** Connects that failed. */
  readonly connectFailures: number;
  /**
   * Times the owner opened its shared connection to this broker again after the first (a lost
   * connection, an idle close); counted by the owner (meta's pool), 0 for a lone connection.
   */
  readonly reconnects: number;
  /** Requests written (acks=0 Produce included). */
  readonly requests: number;
  /** Responses read (late answers to aborted requests included). */
  readonly responses: number;
  /** Request frame bytes written, response frame bytes read, size prefixes included. */
  readonly bytesOut: number;
  readonly bytesIn: number;
  /** Sends refused with BackpressureError. */
  readonly backpressureRejections: number;
  /** Requests on the wire that timed out. */
  readonly requestTimeouts: number;
  /**
   * Answers whose `throttleTimeMs` asked the client to send nothing more on that connection
   * for a while (KIP-219: a client quota, or a replication or mutation quota), and the ms they
   * asked for in all (Kafka's `*-throttle-time` metrics report the same waits).
   */
  readonly throttles: number;
  readonly throttleTimeMs: number;
  /**
   * Time from writing a request to reading its answer, µs, per API name (`Produce`, `Fetch`,
   * ...); only APIs that were answered appear. A long-poll Fetch counts its `maxWaitMs`.
   */
  readonly latencyUs: Readonly<Record<string, HistogramSnapshot>>;
}

/**
 * Where a `BrokerConnection` counts what it does. One per broker, handed to each connection to
 * that broker in turn (`BrokerConnectionOptions.metrics`), so the figures outlive reconnects;
 * a connection given none makes its own. Memory: one {@link Histogram} per API answered.
 */
export class ConnectionMetrics {
  connects = 0;
  connectFailures = 0;
  reconnects = 0;
  requests = 0;
  responses = 0;
  bytesOut = 0;
  bytesIn = 0;
  backpressureRejections = 0;
  requestTimeouts = 0;
  throttles = 0;
  throttleTimeMs = 0;
  /** Latency histograms by API key, made on first use. */
  readonly #latency: (Histogram | undefined)[] = [];

  /** Records one answered request's latency, µs. */
  recordLatency(apiKey: number, micros: number): void {
    let h = this.#latency[apiKey];
    if (h === undefined) {
      h = new Histogram();
      this.#latency[apiKey] = h;
    }
    h.record(micros);
  }

  /** The latency histogram of one API key, if any answer was recorded. */
  latency(apiKey: number): Histogram | undefined {
    return this.#latency[apiKey];
  }

  /** Adds another recorder's counts into this one (totals over brokers). */
  add(other: ConnectionMetrics): void {
    this.connects += other.connects;
    this.connectFailures += other.connectFailures;
    this.reconnects += other.reconnects;
    this.requests += other.requests;
    this.responses += other.responses;
    this.bytesOut += other.bytesOut;
    this.bytesIn += other.bytesIn;
    this.backpressureRejections += other.backpressureRejections;
    this.requestTimeouts += other.requestTimeouts;
    this.throttles += other.throttles;
    this.throttleTimeMs += other.throttleTimeMs;
    other.#latency.forEach((h, apiKey) => {
      if (h === undefined) return;
      let mine = this.#latency[apiKey];
      if (mine === undefined) {
        mine = new Histogram();
        this.#latency[apiKey] = mine;
      }
      mine.add(h);
    });
  }

  /** A copy of the figures; later recording does not change it. */
  snapshot(): ConnectionMetricsSnapshot {
    const latencyUs: Record<string, HistogramSnapshot> = {};
    this.#latency.forEach((h, apiKey) => {
      if (h !== undefined) latencyUs[apiDescriptor(apiKey)?.name ?? `api${apiKey}`] = h.snapshot();
    });
    return {
      connects: this.connects,
      connectFailures: this.connectFailures,
      reconnects: this.reconnects,
      requests: this.requests,
      responses: this.responses,
      bytesOut: this.bytesOut,
      bytesIn: this.bytesIn,
      backpressureRejections: this.backpressureRejections,
      requestTimeouts: this.requestTimeouts,
      throttles: this.throttles,
      throttleTimeMs: this.throttleTimeMs,
      latencyUs,
    };
  }
}
