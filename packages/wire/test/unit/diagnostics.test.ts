/**
 * The tracing channels' `hasSubscribers` on runtimes whose `TracingChannel` has none (Node
 * before 20.13, Bun 1.x): every kafkats trace is guarded by it, so without a getter of our own
 * no trace would ever be published there.
 */
import { tracingChannel } from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import {
  connectChannel,
  createTracingChannel,
  requestChannel,
  withHasSubscribers,
} from '../../src/diagnostics.js';

describe('tracing channels answer hasSubscribers on every runtime', () => {
  it('a channel without the getter gets one that asks each of the five channels of the trace', () => {
    const channel = tracingChannel<unknown, object>('kafkats:test:no-getter');
    // What Bun's TracingChannel looks like: the property is missing.
    Object.defineProperty(channel, 'hasSubscribers', { value: undefined, configurable: true });
    expect(withHasSubscribers(channel)).toBe(channel);
    expect(channel.hasSubscribers).toBe(false);
    for (const event of ['start', 'end', 'asyncStart', 'asyncEnd', 'error'] as const) {
      const listener = () => {};
      channel[event].subscribe(listener);
      expect(channel.hasSubscribers, event).toBe(true);
      channel[event].unsubscribe(listener);
      expect(channel.hasSubscribers, event).toBe(false);
    }
  });

  it("keeps the runtime's own getter where there is one", () => {
    const channel = tracingChannel<unknown, object>('kafkats:test:own-getter');
    let asked = 0;
    Object.defineProperty(channel, 'hasSubscribers', {
      configurable: true,
      get: () => {
        asked++;
        return false;
      },
    });
    withHasSubscribers(channel);
    asked = 0;
    channel.start.subscribe(() => {});
    expect(channel.hasSubscribers).toBe(false);
    expect(asked).toBe(1);
  });

  it('the request and connect channels, and any made by createTracingChannel, follow subscribe', () => {
    const made = createTracingChannel<object>('kafkats:test:made');
    for (const channel of [requestChannel, connectChannel, made]) {
      // Node takes a partial set of handlers; its types ask for all five.
      const handlers = { start: () => {} } as never;
      expect(channel.hasSubscribers).toBe(false);
      channel.subscribe(handlers);
      expect(channel.hasSubscribers).toBe(true);
      channel.unsubscribe(handlers);
      expect(channel.hasSubscribers).toBe(false);
    }
  });
});
