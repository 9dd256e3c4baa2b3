// What the fuzzer feeds: every generated message decoder at every version (requests and
// responses of every API key, request/response headers, Kafka's `data` schemas, the
// tiered-storage metadata records), the framed remote-log-metadata value, and the
// record-batch reader (v2 batches with every codec, legacy v0/v1 message sets, control
// records), with and without the CRC check so mutated batches reach decompression and the
// record walk.

/**
 * @typedef {object} FuzzTarget
 * @property {string} id stable name, the corpus key: `MetadataResponse v12`, `records`, ...
 * @property {'message' | 'records' | 'remote-log-metadata'} family
 * @property {number} maxLength largest input the mutator may produce for this target
 * @property {(length: number) => number} maxUnits most decoded units an input of `length`
 *   bytes may give (no unbounded allocation)
 * @property {(input: Buffer) => number} run decodes `input`, touches everything decoded and
 *   returns its size in units (array elements, characters, records, headers)
 */

/**
 * The messages that are not an API's request or response, with their version ranges (the
 * generated decoders refuse any other version). `test/property/fuzz/coverage-guided.test.ts`
 * checks this list against the generated codec table, so a new schema cannot be missed.
 */
export const OTHER_MESSAGES = [
  ['RequestHeader', 1, 2],
  ['ResponseHeader', 0, 1],
  ['AbortedTxn', 0, 0],
  ['ConsumerProtocolAssignment', 0, 3],
  ['ConsumerProtocolSubscription', 0, 3],
  ['ControlRecordTypeSchema', 0, 0],
  ['DefaultPrincipalData', 0, 0],
  ['EndTxnMarker', 0, 0],
  ['KRaftVersionRecord', 0, 0],
  ['LeaderChangeMessage', 0, 1],
  ['ProducerSnapshot', 1, 1],
  ['SnapshotFooterRecord', 0, 0],
  ['SnapshotHeaderRecord', 0, 0],
  ['VotersRecord', 0, 0],
  ['RemoteLogSegmentMetadataRecord', 0, 0],
  ['RemoteLogSegmentMetadataSnapshotRecord', 0, 0],
  ['RemoteLogSegmentMetadataUpdateRecord', 0, 0],
  ['RemotePartitionDeleteMetadataRecord', 0, 0],
];

/** Inflation limit for fuzzed record batches: far below the default, above any seed. */
export const FUZZ_MAX_UNCOMPRESSED_BYTES = 1 << 20;

/**
 * Elements, characters and objects in a decoded message (Buffers are views: 0).
 * @param {unknown} v
 * @returns {number}
 */
export function decodedUnits(v) {
  if (v === null || typeof v !== 'object') return typeof v === 'string' ? v.length : 0;
  if (Buffer.isBuffer(v)) return 0;
  let n = 1;
  if (Array.isArray(v)) {
    for (const x of v) n += decodedUnits(x);
    return n;
  }
  for (const k in v) n += decodedUnits(/** @type {Record<string, unknown>} */ (v)[k]);
  return n;
}

/**
 * Every array element takes at least one byte or is counted against the bytes left before
 * the array is allocated, and every character comes from at least one byte: a decoded
 * message is linear in its input.
 * @param {number} length
 */
function messageUnits(length) {
  return 4 * length + 64;
}

/**
 * A batch takes at least 26 bytes (legacy v0) and inflates to at most the limit; a record
 * takes at least 7 bytes of (inflated) payload.
 * @param {number} length
 */
function recordUnits(length) {
  return 2 * length + Math.ceil(length / 26) * (FUZZ_MAX_UNCOMPRESSED_BYTES / 7 + 1) + 64;
}

/**
 * @param {any} codec the `@kafkats/codec` module
 * @returns {FuzzTarget[]}
 */
export function fuzzTargets(codec) {
  /** @type {FuzzTarget[]} */
  const out = [];
  /** @param {string} id @param {(r: unknown, v: number) => unknown} decode @param {number} v */
  const message = (id, decode, v) =>
    out.push({
      id,
      family: 'message',
      maxLength: 4096,
      maxUnits: messageUnits,
      run: (input) => decodedUnits(decode(new codec.Reader(input), v)),
    });
  for (const api of codec.API_DESCRIPTORS) {
    for (let v = api.minVersion; v <= api.maxVersion; v++) {
      message(`${api.name}Request v${v}`, api.decodeRequest, v);
      message(`${api.name}Response v${v}`, api.decodeResponse, v);
    }
  }
  for (const [name, min, max] of OTHER_MESSAGES) {
    const decode = codec[`decode${name}`];
    if (typeof decode !== 'function') throw new Error(`@kafkats/codec has no decode${name}`);
    for (let v = min; v <= max; v++) message(`${name} v${v}`, decode, v);
  }
  out.push({
    id: 'remote-log-metadata value',
    family: 'remote-log-metadata',
    maxLength: 4096,
    maxUnits: messageUnits,
    run: (input) => decodedUnits(codec.decodeRemoteLogMetadataValue(input)),
  });
  /** @param {Buffer} input @param {boolean} verifyCrc */
  const walk = (input, verifyCrc) => {
    const it = codec.decodeRecordBatches(input, {
      verifyCrc,
      maxUncompressedBytes: FUZZ_MAX_UNCOMPRESSED_BYTES,
    });
    let units = 0;
    for (const batch of it) {
      units++;
      // Every header field a reader may look at.
      void [
        batch.baseOffset,
        batch.lastOffset,
        batch.maxTimestamp,
        batch.baseTimestamp,
        batch.deleteHorizonMs,
        batch.producerId,
        batch.compression,
        batch.timestampType,
        batch.recordCount,
      ];
      for (const r of batch.records()) {
        units++;
        void [r.offset, r.timestamp, r.sequence, r.key, r.value];
        for (const h of r.headers) units += 1 + h.key.length;
        if (batch.isControl) units += decodedUnits(codec.decodeControlRecord(r));
      }
    }
    void it.partialBatchBytes;
    return units;
  };
  for (const [id, verifyCrc] of [
    ['records', true],
    ['records, CRC unchecked', false],
  ]) {
    out.push({
      id: /** @type {string} */ (id),
      family: 'records',
      maxLength: 64 * 1024,
      maxUnits: recordUnits,
      run: (input) => walk(input, /** @type {boolean} */ (verifyCrc)),
    });
  }
  return out;
}
