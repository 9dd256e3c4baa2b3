// Version negotiation against whatever release the shared cluster runs (the pinned newest in the
// main integration run; 3.9.x and 4.0.x in the version-matrix runs of `npm test`, which set
// KAFKATS_KAFKA_VERSION). Every request goes at the highest version both sides support, so an
// older broker gets older versions; an API it does not offer fails before anything is written
// with UnsupportedVersionError, never as a broker protocol error. Where the answer depends on
// the release, the expectation names the release and the KIP that makes the difference.
import {
  API_DESCRIPTORS,
  type ApiDescriptor,
  ApiVersionsApi,
  ConsumerGroupHeartbeatApi,
  DescribeClusterApi,
  FetchApi,
  MetadataApi,
  ProduceApi,
  ShareGroupHeartbeatApi,
  VoteApi,
} from '@kafkats/codec';
import { kafkaVersionAtLeast, sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrokerCapabilities,
  BrokerConnection,
  parseBrokerAddress,
  UnsupportedVersionError,
} from '../../src/index.js';

const kafka = sharedCluster();
const release = kafka.description.kafkaVersion;
const atLeast = (min: string) => kafkaVersionAtLeast(release, min);

const connections: BrokerConnection[] = [];
const caps: BrokerCapabilities[] = [];

beforeAll(async () => {
  for (const address of kafka.bootstrap.split(',')) {
    const { host, port } = parseBrokerAddress(address);
    const c = new BrokerConnection({ host, port });
    connections.push(c);
    caps.push(await c.connect());
  }
});
afterAll(async () => {
  for (const c of connections) await c.close();
});

/** The highest version we send: an unstable latest version never goes out. */
const ourMax = (api: ApiDescriptor<unknown, unknown>) =>
  api.latestVersionUnstable ? api.maxVersion - 1 : api.maxVersion;

describe(`version negotiation with Kafka ${release}`, () => {
  it('every API both sides know goes at the highest version both support, on every broker', () => {
    const below: string[] = [];
    for (const [i, c] of connections.entries()) {
      const broker = caps[i] as BrokerCapabilities;
      for (const api of API_DESCRIPTORS) {
        const theirs = broker.range(api.apiKey);
        if (theirs === undefined) {
          expect(c.negotiatedVersion(api), api.name).toBeUndefined();
          continue;
        }
        const lo = Math.max(api.minVersion, theirs.minVersion);
        const hi = Math.min(ourMax(api), theirs.maxVersion);
        expect(c.negotiatedVersion(api), api.name).toBe(lo <= hi ? hi : undefined);
        if (i === 0 && hi < ourMax(api)) below.push(`${api.name} v${hi}`);
      }
    }
    // The codec is generated from the pinned release's schemas: against that release nothing
    // falls back; an older broker caps several requests at what it advertises.
    console.log(`Kafka ${release}: below our newest version: ${below.join(', ') || 'none'}`);
    if (!atLeast('4.4')) expect(below.length).toBeGreaterThan(0);
    if (!atLeast('4.1')) {
      // 3.9 and 4.0 know Produce v12 at most and Fetch v17 (Produce v13/Fetch v18 came later).
      expect(below).toEqual(expect.arrayContaining([expect.stringMatching(/^Produce v1[12]$/)]));
      expect(below).toContain('Fetch v17');
    }
  });

  it('ApiVersions itself falls back to the version the broker answers its error with', () => {
    const theirs = caps[0]?.range(ApiVersionsApi.apiKey);
    expect(theirs).toBeDefined();
    for (const broker of caps) {
      expect(broker.apiVersionsVersion).toBe(
        Math.min(ourMax(ApiVersionsApi), theirs?.maxVersion ?? -1),
      );
    }
    // ApiVersions v5 is newer than 4.0: those brokers answered v5 with UNSUPPORTED_VERSION
    // and their range, and the connection asked again at v4.
    if (!atLeast('4.1')) expect(caps[0]?.apiVersionsVersion).toBe(4);
  });

  it('the oldest request versions a broker still takes depend on its release (KIP-896 in 4.0)', () => {
    const produce = caps[0]?.range(ProduceApi.apiKey);
    const fetch = caps[0]?.range(FetchApi.apiKey);
    if (atLeast('4.0')) {
      // 4.0 removed Fetch v0-3 and other pre-2.1 versions; we never send those anyway.
      expect(fetch?.minVersion).toBe(4);
    } else {
      // 3.9 still takes every version since 0.8.
      expect(produce?.minVersion).toBe(0);
      expect(fetch?.minVersion).toBe(0);
    }
    // Either way we send Produce v3+ and Fetch v4+, which every supported release takes.
    expect(connections[0]?.negotiatedVersion(ProduceApi)).toBeGreaterThanOrEqual(3);
    expect(connections[0]?.negotiatedVersion(FetchApi)).toBeGreaterThanOrEqual(4);
  });

  it('leader hints (KIP-951, Kafka 3.7+) are on the negotiated Produce and Fetch of every supported release', () => {
    // Produce v10 and Fetch v16 carry CurrentLeader/NodeEndpoints: 3.9 offers up to v11/v17.
    expect(connections[0]?.negotiatedVersion(ProduceApi)).toBeGreaterThanOrEqual(10);
    expect(connections[0]?.negotiatedVersion(FetchApi)).toBeGreaterThanOrEqual(16);
  });

  it('requests go at the negotiated versions and are answered (Metadata, DescribeCluster)', async () => {
    const c = connections[0] as BrokerConnection;
    const metadata = await c.send(
      MetadataApi,
      MetadataApi.createRequest({ topics: null, allowAutoTopicCreation: false }),
    );
    expect(metadata.clusterId).toBe(kafka.clusterId);
    expect(metadata.brokers.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);
    const described = await c.send(DescribeClusterApi, DescribeClusterApi.createRequest({}));
    expect(described.errorCode).toBe(0);
    expect(described.brokers.map((b) => b.brokerId).sort()).toEqual([1, 2, 3]);
    // DescribeCluster v2 (4.0+) added the endpoint type; 3.9 answers v1.
    expect(c.negotiatedVersion(DescribeClusterApi)).toBe(atLeast('4.0') ? 2 : 1);
  });

  it('an API the broker does not offer fails before anything is written, with a typed error', async () => {
    const c = connections[0] as BrokerConnection;
    // Share groups (KIP-932): 3.9 and 4.0 do not advertise ShareGroupHeartbeat at all; the
    // pinned release does.
    const shareGroups = caps[0]?.range(ShareGroupHeartbeatApi.apiKey) !== undefined;
    if (!atLeast('4.1')) expect(shareGroups).toBe(false);
    if (atLeast('4.4')) expect(shareGroups).toBe(true);
    const writes = c.stats.writes;
    // Vote is controller-to-controller: no release offers it on a client listener.
    const attempt = shareGroups
      ? c.send(VoteApi, VoteApi.createRequest({}))
      : c.send(ShareGroupHeartbeatApi, ShareGroupHeartbeatApi.createRequest({}));
    const name = shareGroups ? 'Vote' : 'ShareGroupHeartbeat';
    await expect(attempt).rejects.toBeInstanceOf(UnsupportedVersionError);
    await expect(attempt).rejects.toMatchObject({
      code: 'ERR_KAFKA_VERSION_UNSUPPORTED',
      message: expect.stringContaining(`does not offer ${name}`),
    });
    expect(c.stats.writes).toBe(writes);
    expect(c.state).toBe('ready');
  });

  it('ConsumerGroupHeartbeat (KIP-848) is advertised by every supported release, v1 from 4.0', () => {
    // 3.9 advertises v0 even though its default group.coordinator.rebalance.protocols is
    // `classic`: the consumer protocol is then refused per request (UNSUPPORTED_VERSION in the
    // response), which the client's Consumer turns into GroupProtocolUnsupportedError (see the
    // client's version-matrix test).
    const range = caps[0]?.range(ConsumerGroupHeartbeatApi.apiKey);
    expect(range?.maxVersion).toBe(atLeast('4.0') ? 1 : 0);
  });
});
