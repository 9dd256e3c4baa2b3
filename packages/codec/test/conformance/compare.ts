// One comparison, shared by the random and the hand-picked suites: messages go to Kafka (as
// JSON) and to our encoder; both must refuse, or both must produce the same bytes. Optionally the
// bytes then go back through Kafka's reader and ours, which must agree with the message.
import type { Oracle, OracleEncodeResult } from '@kafkats/testkit';
import * as codec from '../../src/index.js';
import {
  canonicalFromKafka,
  canonicalFromOurs,
  compareAlong,
  toKafkaJsonText,
} from './kafka-json.js';
import type { MessageSchema } from './schema.js';
import { firstDifferingOffset } from './settings.js';

type Encode = (w: codec.Writer, m: unknown, version: number) => void;
type Decode = (r: codec.Reader, version: number) => unknown;

/** Running totals a suite reports. */
export interface CompareCounters {
  messages: number;
  refusedByBoth: number;
}

const api = codec as unknown as Record<string, unknown>;

/**
 * Compares our codec with Kafka's on `messages` (shaped like our generated types) at `version`.
 * Returns one report per disagreement (message as Kafka JSON, both byte strings, first differing
 * offset) and how many messages both sides encoded.
 */
export async function compareWithKafka(
  oracle: Oracle,
  schema: MessageSchema,
  version: number,
  messages: readonly unknown[],
  label: string,
  counters: CompareCounters,
  checkDecoding: boolean,
): Promise<{ failures: string[]; compared: number }> {
  const encode = api[`encode${schema.name}`] as Encode | undefined;
  const decode = api[`decode${schema.name}`] as Decode | undefined;
  if (typeof encode !== 'function' || typeof decode !== 'function') {
    return {
      failures: [`${label}: the codec exports no encode${schema.name}/decode${schema.name}`],
      compared: 0,
    };
  }
  const jsons = messages.map((m) => toKafkaJsonText(schema.struct, m, version));
  const kafka = await oracle.encode(jsons.map((json) => ({ name: schema.name, version, json })));
  const failures: string[] = [];
  const fail = (i: number, what: string, details: string[] = []): void => {
    failures.push(
      [`${label} message #${i}: ${what}`, `  json:  ${jsons[i]}`, ...details].join('\n'),
    );
  };

  const encoded = compareEncodings(messages, kafka, encode, version, counters, fail);
  if (!checkDecoding) return { failures, compared: encoded.length };

  const read = await oracle.decode(
    encoded.map((d) => ({ name: schema.name, version, bytes: d.bytes })),
  );
  for (let j = 0; j < encoded.length; j++) {
    const { index, bytes } = encoded[j] as { index: number; bytes: Buffer };
    const k = read[j];
    const hex = `  bytes: ${bytes.toString('hex')}`;
    if (k === undefined || 'error' in k) {
      fail(index, `Kafka cannot read its own bytes: ${JSON.stringify(k)}`, [hex]);
      continue;
    }
    if (k.trailing !== 0) fail(index, `Kafka left ${k.trailing} bytes unread`, [hex]);
    const kafkaView = canonicalFromKafka(schema.struct, k.json);
    const sent = canonicalFromOurs(schema.struct, messages[index]);
    // Kafka's reading vs the message: a difference here means Kafka reads back other values than
    // the JSON said, i.e. a flaw of this suite's JSON mapping, or a Kafka quirk.
    const asSent = compareAlong(kafkaView, kafkaView, sent);
    if (asSent)
      fail(index, `Kafka reads back something else than the message (kafka vs sent): ${asSent}`, [
        hex,
      ]);
    try {
      const r = new codec.Reader(bytes);
      const decoded = decode(r, version);
      if (r.remaining() !== 0) fail(index, `our decoder left ${r.remaining()} bytes unread`, [hex]);
      const ours = compareAlong(kafkaView, sent, canonicalFromOurs(schema.struct, decoded));
      if (ours)
        fail(
          index,
          `our decoding of Kafka's bytes differs from the message (sent vs decoded): ${ours}`,
          [hex],
        );
    } catch (error) {
      fail(index, `we cannot decode Kafka's bytes: ${(error as Error).message}`, [hex]);
    }
  }
  return { failures, compared: encoded.length };
}

/** Encodes each message with our codec and compares with Kafka's answer; returns what both encoded. */
function compareEncodings(
  messages: readonly unknown[],
  kafka: readonly OracleEncodeResult[],
  encode: Encode,
  version: number,
  counters: CompareCounters,
  fail: (i: number, what: string, details?: string[]) => void,
): { index: number; bytes: Buffer }[] {
  const encoded: { index: number; bytes: Buffer }[] = [];
  for (let i = 0; i < messages.length; i++) {
    counters.messages++;
    let ours: Buffer | Error;
    try {
      const w = new codec.Writer();
      encode(w, messages[i], version);
      ours = w.finish();
    } catch (error) {
      ours = error instanceof Error ? error : new Error(String(error));
    }
    const k = kafka[i];
    if (k === undefined) {
      fail(i, 'the oracle gave no answer');
    } else if ('error' in k) {
      if (ours instanceof Error) counters.refusedByBoth++;
      else
        fail(i, 'Kafka refuses it, we encode it', [
          `  kafka: ${k.error.class}: ${k.error.message}`,
          `  ours:  ${ours.toString('hex')}`,
        ]);
    } else if (ours instanceof Error) {
      fail(i, 'we refuse it, Kafka encodes it', [
        `  kafka: ${k.hex}`,
        `  ours:  ${ours.name}: ${ours.message}`,
      ]);
    } else {
      const kb = Buffer.from(k.hex, 'hex');
      if (kb.equals(ours)) encoded.push({ index: i, bytes: kb });
      else
        fail(i, `bytes differ at offset ${firstDifferingOffset(kb, ours)}`, [
          `  kafka: ${k.hex}`,
          `  ours:  ${ours.toString('hex')}`,
        ]);
    }
  }
  return encoded;
}
