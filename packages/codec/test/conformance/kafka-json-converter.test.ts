// Conformance, Kafka's JSON form: `toKafkaJson` / `fromKafkaJson` against Kafka's generated
// JsonConverter classes (the oracle), for random messages of every schema and version.
// - Kafka reads our JSON: `toKafkaJson`'s text, given to `<Name>JsonConverter.read` and
//   serialised by Kafka, gives our encoder's bytes. (Kafka's reader takes bytes only from
//   Jackson binary nodes, never from JSON text, so the base64 strings are marked for the pipe.)
// - We write what Kafka writes: for our bytes, `<Name>JsonConverter.write` and `toKafkaJson`
//   give the same keys and values (records aside: Kafka writes them as empty).
import { startOracle } from '@kafkats/testkit';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import {
  type FieldDescription,
  inVersions,
  MESSAGE_DESCRIPTIONS,
  type StructDescription,
  toKafkaJson,
  Writer,
} from '../../src/index.js';
import { MESSAGE_CODECS } from '../support/gen/arbitraries.js';
import { caseSeed } from './settings.js';

const oracle = await startOracle();
afterAll(async () => {
  await oracle.close();
});

const RUNS = 3;
const byName = new Map(MESSAGE_DESCRIPTIONS.map((d) => [d.name, d]));

/** A number token kept as its text (our int64 must not pass through a JavaScript number). */
class Num {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
}

/** JSON.parse with every number token kept as text. */
function parseLossless(text: string): unknown {
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (tok) =>
    tok.startsWith('"') ? tok : `{"#num":"${tok}"}`,
  );
  return JSON.parse(marked, (_k, v) =>
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    Object.keys(v).length === 1 &&
    '#num' in v
      ? new Num((v as { '#num': string })['#num'])
      : v,
  );
}

/** Our JSON value in the oracle pipe's conventions, walked by the description. */
function toPipe(f: FieldDescription, x: unknown): unknown {
  if (x === null) return null;
  if (f.array) return (x as unknown[]).map((e) => elementToPipe(f, e));
  return elementToPipe(f, x);
}

function elementToPipe(f: FieldDescription, x: unknown): unknown {
  if (f.struct !== null) return structToPipe(f.struct, x as Record<string, unknown>);
  if (f.primitive === 'bytes' || f.primitive === 'records') return { $bytes: x };
  if (f.primitive === 'float64') {
    if (x instanceof Num) return { $f64: x.text };
    return { $f64: x as string };
  }
  // Integers go back into the text as bare JSON numbers (see pipeText).
  if (x instanceof Num) return `#int:${x.text}`;
  return x;
}

function structToPipe(s: StructDescription, o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of s.fields) if (f.property in o) out[f.property] = toPipe(f, o[f.property]);
  return out;
}

/** The pipe's JSON text, integers written as the bare numbers they were in our text. */
function pipeText(value: unknown): string {
  return JSON.stringify(value).replace(/"#int:(-?\d+)"/g, '$1');
}

/** Kafka's written JSON and ours, compared field by field at `version`. */
function sameAsKafka(
  s: StructDescription,
  ours: Record<string, unknown>,
  kafka: Record<string, unknown>,
  v: number,
  path: string,
  out: string[],
): void {
  for (const f of s.fields) {
    const where = `${path}.${f.property}`;
    const inOurs = f.property in ours;
    const inKafka = f.property in kafka;
    if (!inVersions(f.versions, v)) {
      if (inOurs || inKafka) out.push(`${where}: written at a version without the field`);
      continue;
    }
    if (inOurs !== inKafka) {
      out.push(`${where}: ${inOurs ? 'only we' : 'only Kafka'} wrote it`);
      continue;
    }
    if (!inOurs) continue;
    sameValue(f, ours[f.property], kafka[f.property], v, where, out);
  }
}

function sameValue(
  f: FieldDescription,
  a: unknown,
  b: unknown,
  v: number,
  where: string,
  out: string[],
): void {
  if (a === null || b === null) {
    if (a !== b) out.push(`${where}: ${JSON.stringify(a)} vs Kafka ${JSON.stringify(b)}`);
    return;
  }
  if (f.array) {
    const xa = a as unknown[];
    const xb = b as unknown[];
    if (xa.length !== xb.length) out.push(`${where}: ${xa.length} elements vs Kafka ${xb.length}`);
    else for (let i = 0; i < xa.length; i++) sameElement(f, xa[i], xb[i], v, `${where}[${i}]`, out);
    return;
  }
  sameElement(f, a, b, v, where, out);
}

function sameElement(
  f: FieldDescription,
  a: unknown,
  b: unknown,
  v: number,
  where: string,
  out: string[],
): void {
  if (f.struct !== null) {
    sameAsKafka(
      f.struct,
      a as Record<string, unknown>,
      b as Record<string, unknown>,
      v,
      where,
      out,
    );
    return;
  }
  let ours: string;
  let theirs: string;
  switch (f.primitive) {
    case 'records':
      return; // Kafka's JsonConverter writes records as empty binary (its JSON is for logs).
    case 'float64': {
      const x = a instanceof Num ? Number(a.text) : Number(a);
      const y = Number((b as { $f64: string }).$f64);
      if (!Object.is(x, y)) out.push(`${where}: ${x} vs Kafka ${y}`);
      return;
    }
    case 'bytes':
      ours = String(a);
      theirs = String(b);
      break;
    case 'int64':
    case 'uint32':
      ours = (a as Num).text;
      theirs = String(b);
      break;
    default:
      // The pipe hands some integer types back as digit strings.
      ours = a instanceof Num ? a.text : JSON.stringify(a);
      theirs =
        typeof b === 'number' ||
        (f.primitive !== 'string' && f.primitive !== 'uuid' && typeof b === 'string')
          ? String(b)
          : JSON.stringify(b);
  }
  if (ours !== theirs) out.push(`${where}: ${ours} vs Kafka ${theirs}`);
}

describe("Kafka's JsonConverter and toKafkaJson", () => {
  for (const c of MESSAGE_CODECS) {
    test(`${c.name}: Kafka reads our JSON to our bytes, and writes the JSON we write`, async () => {
      const d = byName.get(c.name)!;
      const problems: string[] = [];
      for (let v = c.minVersion; v <= c.maxVersion; v++) {
        const messages = fc.sample(c.arbitrary(v), {
          numRuns: RUNS,
          seed: caseSeed(`json ${c.name} v${v}`),
        });
        const texts = messages.map((m) => toKafkaJson(d, m as object, v));
        const bytes = messages.map((m) => {
          const w = new Writer(64);
          c.encode(w, m, v);
          return Buffer.from(w.finish());
        });
        const pipe = texts.map((t) =>
          pipeText(structToPipe(d, parseLossless(t) as Record<string, unknown>)),
        );
        const encoded = await oracle.encode(
          pipe.map((json) => ({ name: c.name, version: v, json })),
        );
        const decoded = await oracle.decode(
          bytes.map((b) => ({ name: c.name, version: v, bytes: b })),
        );
        for (let i = 0; i < messages.length; i++) {
          const label = `${c.name} v${v} #${i}`;
          const e = encoded[i]!;
          if ('error' in e)
            problems.push(`${label}: Kafka could not read ${pipe[i]}: ${e.error.message}`);
          else if (e.hex !== stripUnknownTags(bytes[i]!, messages[i], c, v)) {
            problems.push(
              `${label}: Kafka wrote ${e.hex} from ${texts[i]}, we encode ${bytes[i]!.toString('hex')}`,
            );
          }
          const r = decoded[i]!;
          if ('error' in r)
            problems.push(`${label}: Kafka could not read our bytes: ${r.error.message}`);
          else
            sameAsKafka(
              d,
              parseLossless(texts[i]!) as Record<string, unknown>,
              r.json as Record<string, unknown>,
              v,
              label,
              problems,
            );
        }
      }
      expect(problems).toEqual([]);
    });
  }
});

/** Our bytes for the message without unknown tagged fields (the JSON form drops them). */
function stripUnknownTags(
  b: Buffer,
  m: unknown,
  c: (typeof MESSAGE_CODECS)[number],
  v: number,
): string {
  const plain = strip(m);
  if (plain === m) return b.toString('hex');
  const w = new Writer(64);
  c.encode(w, plain, v);
  return Buffer.from(w.finish()).toString('hex');
}

function strip(v: unknown): unknown {
  if (Array.isArray(v)) {
    const mapped = v.map(strip);
    return mapped.every((x, i) => x === v[i]) ? v : mapped;
  }
  if (v === null || typeof v !== 'object' || v instanceof Uint8Array) return v;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === '_unknownTaggedFields') {
      changed = true;
      continue;
    }
    const y = strip(x);
    if (y !== x) changed = true;
    out[k] = y;
  }
  return changed ? out : v;
}
