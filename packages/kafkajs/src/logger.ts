import type { Logger as KafkatsLogger, LogFields } from '@kafkats/wire';

/** kafkajs's log levels: a level lets through entries at or below it. */
export const logLevel = Object.freeze({
  NOTHING: 0,
  ERROR: 1,
  WARN: 2,
  INFO: 4,
  DEBUG: 5,
} as const);
export type logLevel = (typeof logLevel)[keyof typeof logLevel];

/** What a kafkajs log line carries besides its level. */
export interface LoggerEntryContent {
  readonly timestamp: string;
  readonly message: string;
  // biome-ignore lint/suspicious/noExplicitAny: kafkajs's log entries carry any extra fields
  [key: string]: any;
}

/** One log line as a `logCreator`'s function receives it. */
export interface LogEntry {
  namespace: string;
  level: logLevel;
  label: string;
  log: LoggerEntryContent;
}

/** kafkajs's logger factory: called once with the configured level, returns the line writer. */
export type logCreator = (level: logLevel) => (entry: LogEntry) => void;

/** The logger `kafka.logger()` and each client's `logger()` return. */
export interface Logger {
  info: (message: string, extra?: object) => void;
  error: (message: string, extra?: object) => void;
  warn: (message: string, extra?: object) => void;
  debug: (message: string, extra?: object) => void;
  namespace: (namespace: string, level?: logLevel) => Logger;
  setLogLevel: (level: logLevel) => void;
}

const LABELS: Record<number, string> = {
  [logLevel.ERROR]: 'ERROR',
  [logLevel.WARN]: 'WARN',
  [logLevel.INFO]: 'INFO',
  [logLevel.DEBUG]: 'DEBUG',
};

/**
 * The default `logCreator`: one JSON line per entry, errors and warnings to stderr, the rest to
 * stdout, as kafkajs's console logger writes them (`{"level","timestamp","logger","message",...}`).
 */
export const consoleLogCreator: logCreator = () => (entry) => {
  const { timestamp, message, ...extra } = entry.log;
  const line = JSON.stringify({
    level: entry.label,
    timestamp,
    logger: 'kafkajs',
    message: entry.namespace === '' ? message : `[${entry.namespace}] ${message}`,
    ...extra,
  });
  if (entry.level <= logLevel.WARN) console.error(line);
  else console.log(line);
};

/** The mutable level every namespace of one root logger reads (`setLogLevel` changes it). */
interface LevelCell {
  level: logLevel;
}

function makeLogger(
  write: (entry: LogEntry) => void,
  root: LevelCell,
  namespace: string,
  own: logLevel | undefined,
): Logger {
  let local = own;
  const log = (level: logLevel) => (message: string, extra?: object) => {
    if (level > (local ?? root.level)) return;
    write({
      namespace,
      level,
      label: LABELS[level] ?? 'INFO',
      log: { timestamp: new Date().toISOString(), message, ...extra },
    });
  };
  return {
    error: log(logLevel.ERROR),
    warn: log(logLevel.WARN),
    info: log(logLevel.INFO),
    debug: log(logLevel.DEBUG),
    namespace: (name, level) => makeLogger(write, root, name, level ?? local),
    setLogLevel: (level) => {
      // A namespace with its own level changes only itself; the root changes every child.
      if (local !== undefined) local = level;
      else root.level = level;
    },
  };
}

/**
 * A kafkajs logger: `logCreator(level)` is called once, and each entry at or below the level
 * (`KAFKAJS_LOG_LEVEL` overrides it, as in kafkajs: `NOTHING`, `ERROR`, `WARN`, `INFO`,
 * `DEBUG`) goes to the function it returned. A logCreator that throws does not take the client
 * down: its line is dropped.
 */
export function createLogger(options: { level?: logLevel; logCreator?: logCreator } = {}): Logger {
  const env = process.env.KAFKAJS_LOG_LEVEL?.toUpperCase();
  const fromEnv =
    env !== undefined && Object.hasOwn(logLevel, env)
      ? logLevel[env as keyof typeof logLevel]
      : undefined;
  const level = fromEnv ?? options.level ?? logLevel.INFO;
  const writer = (options.logCreator ?? consoleLogCreator)(level);
  const write = (entry: LogEntry) => {
    try {
      writer(entry);
    } catch {
      // A broken log sink must not fail a send or a rebalance.
    }
  };
  return makeLogger(write, { level }, '', undefined);
}

function plain(fields: LogFields): object {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = typeof v === 'bigint' ? String(v) : v;
  return out;
}

/**
 * kafkats's `Logger` (fields first, then message) writing into a kafkajs logger, so what the
 * cluster, producer and consumer underneath log reaches the application's `logCreator`.
 */
export function kafkatsLogger(logger: Logger): KafkatsLogger {
  return {
    debug: (fields, message) => logger.debug(message, plain(fields)),
    info: (fields, message) => logger.info(message, plain(fields)),
    warn: (fields, message) => logger.warn(message, plain(fields)),
    error: (fields, message) => logger.error(message, plain(fields)),
  };
}
