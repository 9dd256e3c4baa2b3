import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, type LogEntry, logLevel } from '../../src/logger.js';

function capture(level?: logLevel) {
  const entries: LogEntry[] = [];
  const levels: logLevel[] = [];
  const logger = createLogger({
    ...(level === undefined ? {} : { level }),
    logCreator: (l) => {
      levels.push(l);
      return (entry) => entries.push(entry);
    },
  });
  return { logger, entries, levels };
}

describe('kafkajs logger', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('calls the logCreator once with the level, and lets through entries at or below it', () => {
    const { logger, entries, levels } = capture(logLevel.WARN);
    logger.error('e');
    logger.warn('w', { topic: 't' });
    logger.info('i');
    logger.debug('d');
    expect(levels).toEqual([logLevel.WARN]);
    expect(entries.map((e) => [e.label, e.log.message])).toEqual([
      ['ERROR', 'e'],
      ['WARN', 'w'],
    ]);
    expect(entries[1]?.log.topic).toBe('t');
    expect(typeof entries[1]?.log.timestamp).toBe('string');
  });

  it('defaults to INFO, as kafkajs does', () => {
    const { logger, entries } = capture();
    logger.info('i');
    logger.debug('d');
    expect(entries.map((e) => e.log.message)).toEqual(['i']);
  });

  it('names the namespace of a child logger, and setLogLevel on the root reaches children', () => {
    const { logger, entries } = capture(logLevel.INFO);
    const child = logger.namespace('Consumer');
    child.debug('hidden');
    logger.setLogLevel(logLevel.DEBUG);
    child.debug('shown');
    expect(entries.map((e) => [e.namespace, e.log.message])).toEqual([['Consumer', 'shown']]);
  });

  it('a child with its own level keeps it when the root changes', () => {
    const { logger, entries } = capture(logLevel.INFO);
    const child = logger.namespace('Quiet', logLevel.ERROR);
    logger.setLogLevel(logLevel.DEBUG);
    child.warn('hidden');
    child.error('shown');
    expect(entries.map((e) => e.log.message)).toEqual(['shown']);
  });

  it('KAFKAJS_LOG_LEVEL overrides the configured level', () => {
    vi.stubEnv('KAFKAJS_LOG_LEVEL', 'debug');
    const { logger, entries } = capture(logLevel.ERROR);
    logger.debug('d');
    expect(entries.map((e) => e.log.message)).toEqual(['d']);
  });

  it('NOTHING logs nothing', () => {
    const { logger, entries } = capture(logLevel.NOTHING);
    logger.error('e');
    expect(entries).toEqual([]);
  });

  it('a log sink that throws does not throw into the caller', () => {
    const logger = createLogger({
      logCreator: () => () => {
        throw new Error('sink down');
      },
    });
    expect(() => logger.error('e')).not.toThrow();
  });
});
