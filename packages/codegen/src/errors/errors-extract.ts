/**
 * The broker error table as `java/ErrorsExtractor.java` prints it, read from the pinned
 * kafka-clients jar's `org.apache.kafka.common.protocol.Errors` enum by reflection.
 */
export interface ExtractedError {
  /** The wire code (int16); -1 is UNKNOWN_SERVER_ERROR, 0 is NONE. */
  readonly code: number;
  /** Kafka's constant name, e.g. `NOT_LEADER_OR_FOLLOWER`. */
  readonly name: string;
  /** Kafka's default message for the code. */
  readonly message: string;
  /** The Java exception class, or null for NONE. */
  readonly exceptionClass: string | null;
  /** The exception class extends `RetriableException`. */
  readonly retriable: boolean;
  /** The exception class extends `InvalidMetadataException`. */
  readonly invalidMetadata: boolean;
}

/** The whole extractor output. */
export interface ErrorsExtract {
  /** The jar the table was read from, e.g. `kafka-clients-4.4.0.jar`. */
  readonly source: string;
  /** How many constants the enum has, as counted by the extractor. */
  readonly count: number;
  /** Every constant, sorted by code. */
  readonly errors: readonly ExtractedError[];
}

/** The extractor printed something that is not the table we expect. */
export class ErrorsExtractError extends Error {
  readonly code = 'ERR_KAFKA_CODEGEN_ERRORS_INVALID';
}

function fail(detail: string): never {
  throw new ErrorsExtractError(`error table extract: ${detail}`);
}

function field<T>(
  row: Record<string, unknown>,
  key: string,
  check: (v: unknown) => v is T,
  at: string,
): T {
  const value = row[key];
  if (!check(value)) fail(`${at}.${key} has the wrong type`);
  return value;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const isStringOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
const isInt16 = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= -32768 && v <= 32767;
const isName = (v: unknown): v is string => typeof v === 'string' && /^[A-Z][A-Z0-9_]*$/.test(v);

/**
 * Parses and validates the extractor's JSON.
 *
 * @throws ErrorsExtractError when a field is missing or mistyped, a code or name repeats, the
 *   rows are not sorted by code, or `count` disagrees with the rows (a truncated run).
 */
export function parseErrorsExtract(text: string): ErrorsExtract {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    fail(`not JSON (${(cause as Error).message})`);
  }
  if (typeof raw !== 'object' || raw === null) fail('not an object');
  const top = raw as Record<string, unknown>;
  const source = field(top, 'source', isString, '$');
  const count = field(
    top,
    'count',
    (v): v is number => typeof v === 'number' && Number.isInteger(v),
    '$',
  );
  if (!Array.isArray(top.errors)) fail('$.errors is not an array');
  const errors: ExtractedError[] = [];
  const codes = new Set<number>();
  const names = new Set<string>();
  for (const [i, item] of (top.errors as unknown[]).entries()) {
    const at = `$.errors[${i}]`;
    if (typeof item !== 'object' || item === null) fail(`${at} is not an object`);
    const row = item as Record<string, unknown>;
    const entry: ExtractedError = {
      code: field(row, 'code', isInt16, at),
      name: field(row, 'name', isName, at),
      message: field(row, 'message', isString, at),
      exceptionClass: field(row, 'exceptionClass', isStringOrNull, at),
      retriable: field(row, 'retriable', isBool, at),
      invalidMetadata: field(row, 'invalidMetadata', isBool, at),
    };
    if (codes.has(entry.code)) fail(`${at}: code ${entry.code} repeats`);
    if (names.has(entry.name)) fail(`${at}: name ${entry.name} repeats`);
    const previous = errors[errors.length - 1];
    if (previous !== undefined && previous.code > entry.code) fail(`${at}: not sorted by code`);
    // Kafka's InvalidMetadataException extends RetriableException; a row claiming otherwise
    // means the extractor read the hierarchy wrong.
    if (entry.invalidMetadata && !entry.retriable)
      fail(`${at}: ${entry.name} is invalidMetadata but not retriable`);
    codes.add(entry.code);
    names.add(entry.name);
    errors.push(entry);
  }
  if (errors.length !== count) fail(`count says ${count} but there are ${errors.length} rows`);
  if (!codes.has(0) || !codes.has(-1)) fail('NONE (0) or UNKNOWN_SERVER_ERROR (-1) is missing');
  return { source, count, errors };
}
