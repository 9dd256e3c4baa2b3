/**
 * Stage 1: text to JSON. Kafka's schema files are JSON with `//` line comments (Jackson's
 * ALLOW_COMMENTS); comments are removed outside string literals only, so a URL inside an
 * `about` string survives.
 */

/** A schema file that is not valid (commented) JSON or breaks the grammar. */
export class SchemaError extends Error {
  readonly file: string;

  constructor(file: string, message: string) {
    super(`${file}: ${message}`);
    this.file = file;
    this.name = 'SchemaError';
  }
}

/** Removes `//` and `/* *\/` comments that are outside string literals. */
export function stripComments(text: string): string {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      const start = i++;
      while (i < n && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      out += text.slice(start, i);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/**
 * Parses one schema file's text.
 * @throws SchemaError when it is not JSON once comments are removed, or not an object
 */
export function parseSchemaText(file: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(stripComments(text));
  } catch (e) {
    throw new SchemaError(file, `not valid JSON: ${(e as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SchemaError(file, 'top level is not an object');
  }
  return value as Record<string, unknown>;
}
