import {
  createDescribeConfigsRequest,
  createDescribeConfigsRequestResource,
  createIncrementalAlterConfigsRequest,
  createIncrementalAlterConfigsRequestAlterableConfig,
  createIncrementalAlterConfigsRequestAlterConfigsResource,
  DescribeConfigsApi,
  type DescribeConfigsResponseResult,
  ErrorCode,
  IncrementalAlterConfigsApi,
  type KafkaError,
  ProtocolError,
} from '@kafkats/codec';
import type { ClusterTarget } from '@kafkats/meta';
import {
  type AlterConfigOpType,
  type AlterConfigsOptions,
  type AlterConfigsResource,
  type AlterConfigsResult,
  CONFIG_RESOURCE_TYPE_CODES,
  type ConfigResource,
  type DescribeConfigsOptions,
  type DescribeConfigsResource,
  type DescribeConfigsResult,
  type DescribedConfigs,
} from '../configs.js';
import {
  type AdminCall,
  asItemError,
  errorOrUndefined,
  throwIfNothingAnswered,
} from './admin-call.js';
import { configSourceName, configTypeName } from './config-codes.js';

const OP_CODES: Readonly<Record<AlterConfigOpType, number>> = {
  SET: 0,
  DELETE: 1,
  APPEND: 2,
  SUBTRACT: 3,
};

/**
 * Where a config resource is asked: a broker's own configs (and its loggers) live on that
 * broker, so `BROKER`/`BROKER_LOGGER` named by an id go to it, as Kafka's admin sends them;
 * everything else (topics, groups, the cluster-wide broker default `''`) to any broker.
 */
function nodeFor(resource: ConfigResource): number | undefined {
  if (resource.type !== 'BROKER' && resource.type !== 'BROKER_LOGGER') return undefined;
  if (!/^\d+$/.test(resource.name)) return undefined;
  return Number(resource.name);
}

/** Groups resources by destination (undefined = any broker), keeping each one's input index. */
function byDestination<T extends ConfigResource>(
  resources: readonly T[],
): Map<number | undefined, { resource: T; index: number }[]> {
  const groups = new Map<number | undefined, { resource: T; index: number }[]>();
  resources.forEach((resource, index) => {
    const node = nodeFor(resource);
    const group = groups.get(node);
    if (group === undefined) groups.set(node, [{ resource, index }]);
    else group.push({ resource, index });
  });
  return groups;
}

function resourceKey(type: number, name: string): string {
  return `${type}:${name}`;
}

function notAnswered(context: string, r: ConfigResource): KafkaError {
  return ProtocolError.fromCode(
    ErrorCode.UNKNOWN_SERVER_ERROR,
    `${context}: no answer for ${r.type} ${r.name}`,
  );
}

function target(node: number | undefined): ClusterTarget {
  return node === undefined ? { kind: 'any' } : { kind: 'node', nodeId: node };
}

function described(
  resource: DescribeConfigsResource,
  r: DescribeConfigsResponseResult | undefined,
  context: string,
): DescribedConfigs {
  const base = { type: resource.type, name: resource.name };
  if (r === undefined) return { ...base, configs: [], error: notAnswered(context, resource) };
  const error = errorOrUndefined(
    r.errorCode,
    `${context}, ${resource.type} ${resource.name}`,
    r.errorMessage,
  );
  if (error !== undefined) return { ...base, configs: [], error };
  return {
    ...base,
    configs: r.configs.map((c) => {
      const source = configSourceName(c.configSource);
      return {
        name: c.name,
        value: c.value,
        source,
        isDefault: source === 'DEFAULT_CONFIG',
        isSensitive: c.isSensitive,
        readOnly: c.readOnly,
        synonyms: c.synonyms.map((s) => ({
          name: s.name,
          value: s.value,
          source: configSourceName(s.source),
        })),
        type: configTypeName(c.configType),
        documentation: c.documentation,
      };
    }),
  };
}

/** DescribeConfigs: broker resources to their broker, the rest to any broker, in parallel. */
export async function describeConfigs(
  call: AdminCall,
  resources: readonly DescribeConfigsResource[],
  options: DescribeConfigsOptions,
): Promise<DescribeConfigsResult> {
  const out: DescribedConfigs[] = new Array(resources.length);
  await Promise.all(
    [...byDestination(resources)].map(async ([node, group]) => {
      let version = 0;
      try {
        const response = await call.cluster.send(
          target(node),
          DescribeConfigsApi,
          (v) => {
            version = v;
            return createDescribeConfigsRequest({
              resources: group.map(({ resource }) =>
                createDescribeConfigsRequestResource({
                  resourceType: CONFIG_RESOURCE_TYPE_CODES[resource.type],
                  resourceName: resource.name,
                  configurationKeys: resource.keys === undefined ? null : [...resource.keys],
                }),
              ),
              includeSynonyms: options.includeSynonyms ?? false,
              ...(v >= 3 ? { includeDocumentation: options.includeDocumentation ?? false } : {}),
            });
          },
          call.sendOptions(),
        );
        const byKey = new Map(
          response.results.map((r) => [resourceKey(r.resourceType, r.resourceName), r]),
        );
        const context = `DescribeConfigs v${version}${node === undefined ? '' : ` to broker ${node}`}`;
        for (const { resource, index } of group) {
          const key = resourceKey(CONFIG_RESOURCE_TYPE_CODES[resource.type], resource.name);
          out[index] = described(resource, byKey.get(key), context);
        }
      } catch (thrown) {
        const error = asItemError(thrown);
        for (const { resource, index } of group)
          out[index] = { type: resource.type, name: resource.name, configs: [], error };
      }
    }),
  );
  throwIfNothingAnswered(out.map((r) => r.error));
  return { resources: out };
}

/** IncrementalAlterConfigs: broker resources to their broker, the rest to any broker. */
export async function incrementalAlterConfigs(
  call: AdminCall,
  resources: readonly AlterConfigsResource[],
  options: AlterConfigsOptions,
): Promise<AlterConfigsResult> {
  const out: (ConfigResource & { error?: KafkaError })[] = new Array(resources.length);
  await Promise.all(
    [...byDestination(resources)].map(async ([node, group]) => {
      let version = 0;
      try {
        const response = await call.cluster.send(
          target(node),
          IncrementalAlterConfigsApi,
          (v) => {
            version = v;
            return createIncrementalAlterConfigsRequest({
              resources: group.map(({ resource }) =>
                createIncrementalAlterConfigsRequestAlterConfigsResource({
                  resourceType: CONFIG_RESOURCE_TYPE_CODES[resource.type],
                  resourceName: resource.name,
                  configs: resource.ops.map((op) =>
                    createIncrementalAlterConfigsRequestAlterableConfig({
                      name: op.name,
                      configOperation: OP_CODES[op.op],
                      value: op.value ?? null,
                    }),
                  ),
                }),
              ),
              validateOnly: options.validateOnly ?? false,
            });
          },
          call.sendOptions(),
        );
        const byKey = new Map(
          response.responses.map((r) => [resourceKey(r.resourceType, r.resourceName), r]),
        );
        const context = `IncrementalAlterConfigs v${version}`;
        for (const { resource, index } of group) {
          const base = { type: resource.type, name: resource.name };
          const r = byKey.get(
            resourceKey(CONFIG_RESOURCE_TYPE_CODES[resource.type], resource.name),
          );
          const error =
            r === undefined
              ? notAnswered(context, resource)
              : errorOrUndefined(
                  r.errorCode,
                  `${context}, ${resource.type} ${resource.name}`,
                  r.errorMessage,
                );
          out[index] = error === undefined ? base : { ...base, error };
        }
      } catch (thrown) {
        const error = asItemError(thrown);
        for (const { resource, index } of group)
          out[index] = { type: resource.type, name: resource.name, error };
      }
    }),
  );
  throwIfNothingAnswered(out.map((r) => r.error));
  return { resources: out };
}
