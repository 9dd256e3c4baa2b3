import {
  ApiVersionsApi,
  createApiVersionsRequest,
  createUpdateFeaturesRequest,
  createUpdateFeaturesRequestFeatureUpdateKey,
  UpdateFeaturesApi,
} from '@kafkats/codec';
import { UnsupportedVersionError } from '@kafkats/wire';
import type {
  DescribeFeaturesResult,
  FeatureDescription,
  FeatureUpdate,
  UpdateFeaturesOptions,
  UpdateFeaturesResult,
} from '../features.js';
import { type AdminCall, errorOrUndefined } from './admin-call.js';

/**
 * ApiVersions (v3+) from any broker: its supported feature ranges and the cluster's finalized
 * levels, as Kafka's `Admin.describeFeatures` asks the least loaded broker.
 */
export async function describeFeatures(call: AdminCall): Promise<DescribeFeaturesResult> {
  const r = await call.cluster.sendAny(
    ApiVersionsApi,
    (v) => {
      if (v < 3)
        throw new UnsupportedVersionError(
          `ApiVersions v${v}: features are reported from v3 (KIP-584)`,
        );
      return createApiVersionsRequest({
        clientSoftwareName: 'kafkats',
        clientSoftwareVersion: '0.1.0',
      });
    },
    call.sendOptions(),
  );
  const error = errorOrUndefined(r.errorCode, 'ApiVersions');
  if (error !== undefined) throw error;
  const byName = new Map<
    string,
    { -readonly [K in keyof FeatureDescription]: FeatureDescription[K] }
  >();
  const entry = (name: string) => {
    let e = byName.get(name);
    if (e === undefined) {
      e = { name };
      byName.set(name, e);
    }
    return e;
  };
  for (const f of r.supportedFeatures)
    entry(f.name).supported = { minVersion: f.minVersion, maxVersion: f.maxVersion };
  for (const f of r.finalizedFeatures)
    if (f.maxVersionLevel > 0) entry(f.name).finalizedLevel = f.maxVersionLevel;
  return {
    finalizedFeaturesEpoch: r.finalizedFeaturesEpoch,
    features: [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  };
}

const UPGRADE_TYPE = { upgrade: 1, 'safe-downgrade': 2, 'unsafe-downgrade': 3 } as const;

/**
 * UpdateFeatures to the controller. v0 (before KIP-778) knows only a downgrade flag; v2
 * answers with one error for the whole request, given to every feature.
 */
export async function updateFeatures(
  call: AdminCall,
  updates: readonly FeatureUpdate[],
  options: UpdateFeaturesOptions,
): Promise<UpdateFeaturesResult> {
  let version = 0;
  const r = await call.cluster.sendToController(
    UpdateFeaturesApi,
    (v) => {
      version = v;
      return createUpdateFeaturesRequest({
        timeoutMs: call.serverTimeoutMs(),
        validateOnly: options.validateOnly ?? false,
        featureUpdates: updates.map((u) =>
          createUpdateFeaturesRequestFeatureUpdateKey({
            feature: u.feature,
            maxVersionLevel: u.level,
            ...(v === 0
              ? { allowDowngrade: (u.upgradeType ?? 'upgrade') !== 'upgrade' }
              : { upgradeType: UPGRADE_TYPE[u.upgradeType ?? 'upgrade'] }),
          }),
        ),
      });
    },
    call.sendOptions(),
  );
  const context = `UpdateFeatures v${version}`;
  const top = errorOrUndefined(r.errorCode, context, r.errorMessage);
  const byName = new Map(r.results.map((x) => [x.feature, x]));
  return {
    features: updates.map((u) => {
      const own = byName.get(u.feature);
      const error =
        top ??
        (own === undefined
          ? undefined
          : errorOrUndefined(own.errorCode, `${context}, feature ${u.feature}`, own.errorMessage));
      return error === undefined ? { feature: u.feature } : { feature: u.feature, error };
    }),
  };
}
