import type { ApiDescriptor, ApiVersionsResponse } from '@kafkats/codec';
import { UnsupportedVersionError } from './errors.js';

/** A broker's version range for one API key. */
export interface ApiVersionRange {
  readonly minVersion: number;
  readonly maxVersion: number;
}

/** The highest version we send of `api`: unstable latest versions are never sent. */
function ourMaxVersion(api: ApiDescriptor<unknown, unknown>): number {
  return api.latestVersionUnstable ? api.maxVersion - 1 : api.maxVersion;
}

/**
 * What one broker said it supports in ApiVersions on one connection. Negotiated afresh on
 * every connection (a broker can be upgraded or rolled back between two), immutable, and
 * shared with callers so they can gate behaviour (e.g. a newer InitProducerId).
 */
export class BrokerCapabilities {
  /** The ApiVersions version the exchange finally used. */
  readonly apiVersionsVersion: number;
  /** Milliseconds since the epoch when the broker answered. */
  readonly negotiatedAtMs: number;
  /**
   * The cluster's finalized feature levels as this broker knew them (ApiVersions v3+, KIP-584):
   * `transaction.version`, `group.version`, `share.version`, `metadata.version`, ... Empty
   * from an older broker.
   */
  readonly finalizedFeatures: ReadonlyMap<string, number>;
  /** The epoch of those levels; -1n when the broker sent none. */
  readonly finalizedFeaturesEpoch: bigint;
  private readonly ranges: (ApiVersionRange | undefined)[] = [];

  constructor(
    response: Pick<ApiVersionsResponse, 'apiKeys'> &
      Partial<Pick<ApiVersionsResponse, 'finalizedFeatures' | 'finalizedFeaturesEpoch'>>,
    apiVersionsVersion: number,
    nowMs: number,
  ) {
    for (const k of response.apiKeys) {
      if (k.apiKey >= 0 && k.apiKey < 32768 && k.minVersion <= k.maxVersion) {
        this.ranges[k.apiKey] = Object.freeze({
          minVersion: k.minVersion,
          maxVersion: k.maxVersion,
        });
      }
    }
    this.apiVersionsVersion = apiVersionsVersion;
    this.negotiatedAtMs = nowMs;
    const features = new Map<string, number>();
    for (const f of response.finalizedFeatures ?? []) features.set(f.name, f.maxVersionLevel);
    this.finalizedFeatures = features;
    this.finalizedFeaturesEpoch = response.finalizedFeaturesEpoch ?? -1n;
    Object.freeze(this);
  }

  /** The broker's range for `apiKey`, or undefined when it does not offer the API. */
  range(apiKey: number): ApiVersionRange | undefined {
    return this.ranges[apiKey];
  }

  /** The finalized level of a feature (`transaction.version`), or undefined when not finalized. */
  finalizedFeature(name: string): number | undefined {
    return this.finalizedFeatures.get(name);
  }

  /** Every API key the broker offers, ascending. */
  apiKeys(): number[] {
    const out: number[] = [];
    for (let k = 0; k < this.ranges.length; k++) if (this.ranges[k] !== undefined) out.push(k);
    return out;
  }

  /**
   * The version a request of `api` goes at: the highest both sides support, or `pinned`
   * when given and both sides support it; undefined when there is none.
   */
  negotiatedVersion(api: ApiDescriptor<unknown, unknown>, pinned?: number): number | undefined {
    const theirs = this.ranges[api.apiKey];
    if (theirs === undefined) return undefined;
    const lo = Math.max(api.minVersion, theirs.minVersion);
    const hi = Math.min(ourMaxVersion(api), theirs.maxVersion);
    if (pinned !== undefined) {
      return Number.isInteger(pinned) &&
        pinned >= lo &&
        pinned <= Math.min(api.maxVersion, theirs.maxVersion)
        ? pinned
        : undefined;
    }
    return lo <= hi ? hi : undefined;
  }

  /**
   * Like {@link negotiatedVersion} but throws.
   *
   * @param broker the connection's label for the message
   * @throws UnsupportedVersionError (`ERR_KAFKA_VERSION_UNSUPPORTED`) naming the API, both
   *   ranges and the pinned version
   */
  requireVersion(api: ApiDescriptor<unknown, unknown>, broker: string, pinned?: number): number {
    const v = this.negotiatedVersion(api, pinned);
    if (v !== undefined) return v;
    const theirs = this.ranges[api.apiKey];
    const ours = `v${api.minVersion}-${ourMaxVersion(api)}`;
    const detail =
      theirs === undefined
        ? `does not offer ${api.name} (we support ${ours})`
        : pinned !== undefined
          ? `cannot take ${api.name} v${pinned} (broker v${theirs.minVersion}-${theirs.maxVersion}, we v${api.minVersion}-${api.maxVersion})`
          : `and we share no ${api.name} version (broker v${theirs.minVersion}-${theirs.maxVersion}, we ${ours})`;
    throw new UnsupportedVersionError(`${broker} ${detail}`);
  }
}
