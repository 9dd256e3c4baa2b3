// Properties of serialization: the built-in serializers and deserializers give back what they
// were given (JSON values, any Unicode text, any bytes), and however an async serializer's
// answers are delayed, and whichever records it fails, the producer writes exactly the records
// that serialized, each partition in send order, and fails exactly the others.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type DeserializerContext,
  jsonDeserializer,
  jsonSerializer,
  Producer,
  rawDeserializer,
  rawSerializer,
  SerializationError,
  type SerializerContext,
  stringDeserializer,
  stringSerializer,
} from '../../../src/index.js';
import { FakeProduceCluster } from '../../unit/producer/fake-produce-cluster.js';

const runs = {
  numRuns: Number(process.env.RUNS ?? 100),
  seed: Number(process.env.FC_SEED ?? 20261204),
};
const sctx: SerializerContext = { topic: 't', headers: undefined, addHeader: () => {} };
const dctx = { topic: 't', partition: 0 } as unknown as DeserializerContext;
const bytes = (v: unknown) => Buffer.from(typeof v === 'string' ? v : (v as Uint8Array));

describe('built-in serializers', () => {
  it('JSON: any JSON value comes back equal', () => {
    const decode = jsonDeserializer();
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const out = decode(bytes(jsonSerializer(value, sctx)), dctx);
        expect(out).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      runs,
    );
  });

  it('string: any Unicode text comes back equal, as UTF-8 on the wire', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 64 }), (text) => {
        const wire = bytes(stringSerializer(text, sctx));
        expect(wire).toEqual(Buffer.from(text, 'utf8'));
        expect(stringDeserializer(wire, dctx)).toBe(text);
      }),
      runs,
    );
  });

  it('raw: bytes go and come back unchanged', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (data) => {
        const wire = bytes(rawSerializer(data, sctx));
        expect(rawDeserializer(wire, dctx)).toEqual(Buffer.from(data));
      }),
      runs,
    );
  });
});

describe('producer with an async serializer', () => {
  it('writes exactly the records that serialized, in send order per partition', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            partition: fc.nat(2),
            turns: fc.nat(4),
            sync: fc.boolean(),
            fails: fc.boolean(),
          }),
          { minLength: 1, maxLength: 60 },
        ),
        fc.boolean(),
        async (records, batched) => {
          const fake = new FakeProduceCluster({ t: 3 });
          const producer = new Producer<number, number>(fake, {
            lingerMs: 0,
            batchSize: 200,
            serializers: {
              value: (i) => {
                const r = records[i]!;
                if (r.sync) {
                  if (r.fails) throw new Error(`no ${i}`);
                  return String(i);
                }
                return (async () => {
                  for (let n = r.turns; n > 0; n--) await new Promise((done) => setImmediate(done));
                  if (r.fails) throw new Error(`no ${i}`);
                  return String(i);
                })();
              },
            },
          });
          const failed: number[] = [];
          const sends = records.map((r, i) => ({ topic: 't', partition: r.partition, value: i }));
          const half = Math.floor(sends.length / 2);
          const calls = batched ? [sends.slice(0, half), sends.slice(half)] : sends.map((s) => [s]);
          // One sendBatch per half (records also queue behind an earlier call's), or one send
          // per record; either rejects with a SerializationError when a record of it failed.
          const outcomes = await Promise.allSettled(
            calls.map((call) =>
              batched ? producer.sendBatch(call) : producer.send(call[0] as (typeof sends)[0]),
            ),
          );
          outcomes.forEach((o, c) => {
            if (o.status === 'fulfilled') return;
            expect(o.reason).toBeInstanceOf(SerializationError);
            failed.push(c);
          });
          const expectedFailed = calls.flatMap((call, c) =>
            call.some((s) => records[s.value]!.fails) ? [c] : [],
          );
          expect(failed).toEqual(expectedFailed);
          await producer.close();
          const ok = records.map((r, i) => ({ ...r, i })).filter((r) => !r.fails);
          for (const p of [0, 1, 2]) {
            expect(fake.log('t', p).values).toEqual(
              ok.filter((r) => r.partition === p).map((r) => String(r.i)),
            );
          }
        },
      ),
      runs,
    );
  });
});
