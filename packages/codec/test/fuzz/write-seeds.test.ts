// `npm run fuzz:seeds -w @kafkats/codec`: writes the fuzzer's starting corpus,
// fixtures/fuzz/messages.txt and records.txt, from the generated arbitraries (a few small
// valid encodings per message and version) and from Kafka's own record batches
// (fixtures/vectors/record-batches.json, written by MemoryRecordsBuilder). Deterministic: the
// same schemas give the same files. Not part of `npm test` (vitest.fuzz.config.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { Writer } from '../../src/index.js';
import { MESSAGE_CODECS } from '../support/gen/arbitraries.js';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '..', '..', 'fixtures', 'fuzz');
const vectors = join(here, '..', '..', '..', '..', 'fixtures', 'vectors', 'record-batches.json');

/** Encodings kept per message and version, and the largest kept. */
const PER_VERSION = 2;
const MAX_SEED_BYTES = 384;

function line(target: string, bytes: Buffer): string {
  return `${target}\t${bytes.toString('base64')}`;
}

it('writes the fuzz seed corpus', () => {
  const messages: string[] = [
    '# Seeds for scripts/fuzz (target<TAB>base64): valid encodings from the generated',
    '# arbitraries; rewritten by `npm run fuzz:seeds -w @kafkats/codec`.',
  ];
  let n = 0;
  for (const c of MESSAGE_CODECS) {
    for (let v = c.minVersion; v <= c.maxVersion; v++) {
      const samples = fc.sample(c.arbitrary(v), { numRuns: 12, seed: 20260505 + n++ });
      const encoded = new Map<string, Buffer>();
      for (const m of samples) {
        const w = new Writer(64);
        c.encode(w, m, v);
        const b = Buffer.from(w.finish());
        if (b.length <= MAX_SEED_BYTES) encoded.set(b.toString('hex'), b);
      }
      const kept = [...encoded.values()].sort((a, b) => a.length - b.length);
      // The smallest and the largest that fit: one lean, one with the optional parts.
      const pick = kept.length <= PER_VERSION ? kept : [kept[0]!, kept[kept.length - 1]!];
      expect(pick.length, `${c.name} v${v}`).toBeGreaterThan(0);
      for (const b of pick) {
        messages.push(line(`${c.name} v${v}`, b));
        if (c.type === 'metadata') {
          // The same record framed as on the __remote_log_metadata topic.
          const w = new Writer(64);
          w.writeUvarint(1);
          w.writeUvarint(c.apiKey!);
          w.writeUvarint(v);
          const framed = Buffer.concat([Buffer.from(w.finish()), b]);
          messages.push(line('remote-log-metadata value', framed));
        }
      }
    }
  }
  writeFileSync(join(fixtures, 'messages.txt'), `${messages.join('\n')}\n`);

  const records: string[] = [
    "# Seeds for scripts/fuzz: Kafka's record batches from fixtures/vectors/record-batches.json",
    '# (every codec, legacy magic 0 and 1, control batches); `npm run fuzz:seeds -w @kafkats/codec`.',
  ];
  const { vectors: list } = JSON.parse(readFileSync(vectors, 'utf8')) as {
    vectors: { name: string; hex: string }[];
  };
  for (const vec of list) {
    const b = Buffer.from(vec.hex, 'hex');
    if (b.length > 8192) continue;
    records.push(line('records', b), line('records, CRC unchecked', b));
  }
  writeFileSync(join(fixtures, 'records.txt'), `${records.join('\n')}\n`);
  expect(records.length).toBeGreaterThan(20);
});
