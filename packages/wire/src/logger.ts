/** Structured fields of a log line: plain data, never credentials. */
export type LogFields = Record<string, unknown>;

/** Log levels, least to most severe. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * What kafkats logs through: four methods called as `(fields, message)`. A pino logger and
 * `console` fit as they are (`Cluster.connect(brokers, { logger: pino() })`); pino filters by
 * its own level, and {@link filterLogger} gives `console` (or anything else) a threshold.
 * Every package is silent unless given one. Calls are made on lifecycle events, retries and
 * failures, never once per request.
 */
export interface Logger {
  debug(fields: LogFields, message: string): void;
  info(fields: LogFields, message: string): void;
  warn(fields: LogFields, message: string): void;
  error(fields: LogFields, message: string): void;
}

const noop = (): void => {};

/** Logs nothing: the default everywhere. */
export const silentLogger: Logger = Object.freeze({
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
});

const RANK: Readonly<Record<LogLevel | 'silent', number>> = {
  debug: 0,
  info: 1,
  warn: 2,
  error: 3,
  silent: 4,
};

/**
 * `logger` with the calls below `level` dropped (`'silent'` drops all): `filterLogger(console,
 * 'info')` prints lifecycle events, warnings and errors, not retries.
 *
 * @throws RangeError for an unknown level
 */
export function filterLogger(logger: Logger, level: LogLevel | 'silent'): Logger {
  const min = RANK[level];
  if (min === undefined) throw new RangeError(`unknown log level ${JSON.stringify(level)}`);
  const pick = (l: LogLevel): Logger[LogLevel] =>
    RANK[l] >= min ? (fields, message) => logger[l](fields, message) : noop;
  return { debug: pick('debug'), info: pick('info'), warn: pick('warn'), error: pick('error') };
}

/** An error as log fields: its class, code and message (never its cause's secrets or stack). */
export function errorFields(error: unknown): LogFields {
  if (!(error instanceof Error)) return { error: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    error: error.message,
    errorName: error.name,
    ...(typeof code === 'string' ? { errorCode: code } : {}),
  };
}
