import { CliError } from './cli-error.js';

/** A record read from stdin (or flags), before it is sent. */
export interface InputRecord {
  readonly key: string | null;
  readonly value: string | null;
  readonly headers: readonly { readonly key: string; readonly value: string | null }[];
  readonly partition?: number;
  readonly timestamp?: bigint;
}

/** How stdin lines become records. */
export interface InputOptions {
  /** `lines`: each line is a value (or `key<sep>value`); `json`: each line is a JSON object. */
  readonly format: 'lines' | 'json';
  readonly key?: string;
  readonly keySeparator?: string;
  /** `key=value` pairs added to every record. */
  readonly headers: readonly string[];
  readonly partition?: number;
}

const bad = (line: number, what: string) =>
  new CliError('ERR_KAFKA_CLI_INPUT_INVALID', `stdin line ${line}: ${what}`, {
    hint: 'with --format json each line is {"key":..., "value":..., "headers":{"name":"value"}, "partition":0, "timestamp":1700000000000}',
  });

/** Parses `-H name=value` flags. */
export function parseHeaderFlags(
  flags: readonly string[],
): { key: string; value: string | null }[] {
  return flags.map((h) => {
    const eq = h.indexOf('=');
    if (eq <= 0) throw new CliError('ERR_KAFKA_CLI_USAGE', `header "${h}" is not name=value`);
    return { key: h.slice(0, eq), value: h.slice(eq + 1) };
  });
}

const text = (v: unknown): string | null =>
  v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v);

/**
 * One stdin line as a record; undefined for an empty line in `lines` format (skipped).
 * In `json` format a non-string `value` or `key` is sent as its JSON text.
 *
 * @param lineNumber 1-based, for messages
 * @throws CliError `ERR_KAFKA_CLI_INPUT_INVALID` (exit 1) for a line that is not what the format says
 */
export function parseInputLine(
  line: string,
  lineNumber: number,
  options: InputOptions,
): InputRecord | undefined {
  const flagHeaders = parseHeaderFlags(options.headers);
  const base = options.partition === undefined ? {} : { partition: options.partition };
  if (options.format === 'lines') {
    if (line === '') return undefined;
    if (options.keySeparator !== undefined) {
      const at = line.indexOf(options.keySeparator);
      if (at < 0) throw bad(lineNumber, `no key separator "${options.keySeparator}"`);
      return {
        ...base,
        key: line.slice(0, at),
        value: line.slice(at + options.keySeparator.length),
        headers: flagHeaders,
      };
    }
    return { ...base, key: options.key ?? null, value: line, headers: flagHeaders };
  }
  if (line.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    throw bad(lineNumber, `not JSON (${(error as Error).message})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw bad(lineNumber, 'not a JSON object');
  const o = parsed as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!['key', 'value', 'headers', 'partition', 'timestamp'].includes(k))
      throw bad(lineNumber, `unknown field "${k}"`);
  }
  const headers = [...flagHeaders];
  if (Array.isArray(o.headers)) {
    for (const h of o.headers) {
      if (h === null || typeof h !== 'object' || typeof (h as { key?: unknown }).key !== 'string')
        throw bad(lineNumber, 'headers entries must be {"key": string, "value": string | null}');
      headers.push({
        key: (h as { key: string }).key,
        value: text((h as { value?: unknown }).value),
      });
    }
  } else if (o.headers !== undefined && o.headers !== null) {
    if (typeof o.headers !== 'object')
      throw bad(lineNumber, 'headers must be an object or an array');
    for (const [k, v] of Object.entries(o.headers)) headers.push({ key: k, value: text(v) });
  }
  let partition = options.partition;
  if (o.partition !== undefined) {
    if (!Number.isInteger(o.partition) || (o.partition as number) < 0)
      throw bad(lineNumber, 'partition must be an integer >= 0');
    partition = o.partition as number;
  }
  let timestamp: bigint | undefined;
  if (o.timestamp !== undefined) {
    if (typeof o.timestamp !== 'number' && typeof o.timestamp !== 'string')
      throw bad(lineNumber, 'timestamp must be ms since the epoch');
    try {
      timestamp = BigInt(o.timestamp);
    } catch {
      throw bad(lineNumber, 'timestamp must be ms since the epoch');
    }
  }
  return {
    key: o.key === undefined ? (options.key ?? null) : text(o.key),
    value: text(o.value),
    headers,
    ...(partition === undefined ? {} : { partition }),
    ...(timestamp === undefined ? {} : { timestamp }),
  };
}
