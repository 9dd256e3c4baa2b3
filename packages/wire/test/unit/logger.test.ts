import { describe, expect, it } from 'vitest';
import { ConnectionError } from '../../src/errors.js';
import { errorFields, filterLogger, type Logger, silentLogger } from '../../src/logger.js';

function spy(): { logger: Logger; calls: [string, Record<string, unknown>, string][] } {
  const calls: [string, Record<string, unknown>, string][] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => {
    calls.push([level, fields, message]);
  };
  return {
    calls,
    logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
  };
}

describe('filterLogger', () => {
  it('passes the calls at or above the level, with their fields and message, and drops the rest', () => {
    const { logger, calls } = spy();
    const filtered = filterLogger(logger, 'info');
    filtered.debug({ a: 1 }, 'dropped');
    filtered.info({ b: 2 }, 'kept info');
    filtered.warn({}, 'kept warn');
    filtered.error({ c: 3 }, 'kept error');
    expect(calls).toEqual([
      ['info', { b: 2 }, 'kept info'],
      ['warn', {}, 'kept warn'],
      ['error', { c: 3 }, 'kept error'],
    ]);
  });

  it("drops everything at 'silent' and refuses an unknown level with RangeError", () => {
    const { logger, calls } = spy();
    const silent = filterLogger(logger, 'silent');
    silent.error({}, 'x');
    expect(calls).toEqual([]);
    expect(() => filterLogger(logger, 'loud' as 'info')).toThrow(RangeError);
    expect(() => silentLogger.error({}, 'nothing')).not.toThrow();
  });

  it('accepts console as a logger', () => {
    const asLogger: Logger = console;
    expect(typeof filterLogger(asLogger, 'error').error).toBe('function');
  });
});

describe('errorFields', () => {
  it("names a KafkaError's message, class and code", () => {
    const error = new ConnectionError('ERR_KAFKA_CONNECTION_LOST', 'broker 1 (h:1)', 'gone');
    expect(errorFields(error)).toEqual({
      error: error.message,
      errorName: error.name,
      errorCode: 'ERR_KAFKA_CONNECTION_LOST',
    });
    expect(errorFields('plain')).toEqual({ error: 'plain' });
  });
});
