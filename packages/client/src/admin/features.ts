import type { ProtocolError } from '@kafkats/codec';
import type { AdminCallOptions } from './admin-options.js';

/** A feature as {@link Admin.describeFeatures} reports it (Kafka's `FeatureMetadata`). */
export interface FeatureDescription {
  readonly name: string;
  /** The finalized level the cluster runs at; absent when the feature is not finalized (0). */
  readonly finalizedLevel?: number;
  /** The levels the answering broker supports, when it supports the feature. */
  readonly supported?: { readonly minVersion: number; readonly maxVersion: number };
}

/** {@link Admin.describeFeatures}' answer: from ApiVersions v3+ of one broker. */
export interface DescribeFeaturesResult {
  /** The finalized features' epoch (the metadata offset they were finalized at); -1 when unknown. */
  readonly finalizedFeaturesEpoch: bigint;
  /** Every feature finalized or supported, sorted by name. */
  readonly features: readonly FeatureDescription[];
}

/**
 * Kafka's `FeatureUpdate.UpgradeType`: `upgrade` raises the level; `safe-downgrade` lowers it
 * where no metadata is lost; `unsafe-downgrade` lowers it even if metadata is lost.
 */
export type FeatureUpgradeType = 'upgrade' | 'safe-downgrade' | 'unsafe-downgrade';

/** One change of {@link Admin.updateFeatures}. */
export interface FeatureUpdate {
  readonly feature: string;
  /** The new finalized level; 0 disables the feature (a downgrade). */
  readonly level: number;
  /** Default `upgrade`. */
  readonly upgradeType?: FeatureUpgradeType;
}

/** Options of {@link Admin.updateFeatures}. */
export interface UpdateFeaturesOptions extends AdminCallOptions {
  /** Only validate (UpdateFeatures v1+). Default false. */
  readonly validateOnly?: boolean;
}

/** {@link Admin.updateFeatures}' answer: one entry per feature, in request order. */
export interface UpdateFeaturesResult {
  readonly features: readonly { readonly feature: string; readonly error?: ProtocolError }[];
}
