import {
  CreateAclsApi,
  createCreateAclsRequest,
  createDeleteAclsRequest,
  createDescribeAclsRequest,
  DeleteAclsApi,
  DescribeAclsApi,
  ErrorCode,
  ProtocolError,
} from '@kafkats/codec';
import {
  ACL_OPERATIONS,
  type AclBinding,
  type AclBindingFilter,
  type AclBindingInput,
  type AclPatternType,
  type AclPermissionType,
  type AclResourceType,
  type CreateAclsResult,
  type DeleteAclsFilterResult,
  type DeleteAclsResult,
  type DescribeAclsResult,
} from '../acls.js';
import { type AdminCall, errorOrUndefined } from './admin-call.js';

// Kafka's enum ids, in order: ResourceType, PatternType, AclOperation, AclPermissionType.
const RESOURCE_TYPES: readonly AclResourceType[] = [
  'UNKNOWN',
  'ANY',
  'TOPIC',
  'GROUP',
  'CLUSTER',
  'TRANSACTIONAL_ID',
  'DELEGATION_TOKEN',
  'USER',
];
const PATTERN_TYPES: readonly AclPatternType[] = ['UNKNOWN', 'ANY', 'MATCH', 'LITERAL', 'PREFIXED'];
const OPERATIONS = ACL_OPERATIONS;
const PERMISSIONS: readonly AclPermissionType[] = ['UNKNOWN', 'ANY', 'DENY', 'ALLOW'];

function code<T extends string>(table: readonly T[], name: T): number {
  return Math.max(0, table.indexOf(name));
}

/** The name of an enum id; UNKNOWN for an id this release does not know. */
function name<T extends string>(table: readonly T[], id: number): T | 'UNKNOWN' {
  return table[id] ?? 'UNKNOWN';
}

/** A binding with its defaults filled in. */
export function normalizeBinding(b: AclBindingInput): AclBinding {
  return {
    resourceType: b.resourceType,
    resourceName: b.resourceName,
    patternType: b.patternType ?? 'LITERAL',
    principal: b.principal,
    host: b.host ?? '*',
    operation: b.operation,
    permission: b.permission ?? 'ALLOW',
  };
}

interface WireBinding {
  resourceType: number;
  resourceName: string;
  patternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

function fromWire(b: WireBinding): AclBinding {
  return {
    resourceType: name(RESOURCE_TYPES, b.resourceType),
    resourceName: b.resourceName,
    patternType: name(PATTERN_TYPES, b.patternType),
    principal: b.principal,
    host: b.host,
    operation: name(OPERATIONS, b.operation),
    permission: name(PERMISSIONS, b.permissionType),
  };
}

function filterFields(f: AclBindingFilter) {
  return {
    resourceTypeFilter: code(RESOURCE_TYPES, f.resourceType ?? 'ANY'),
    resourceNameFilter: f.resourceName ?? null,
    patternTypeFilter: code(PATTERN_TYPES, f.patternType ?? 'ANY'),
    principalFilter: f.principal ?? null,
    hostFilter: f.host ?? null,
    operation: code(OPERATIONS, f.operation ?? 'ANY'),
    permissionType: code(PERMISSIONS, f.permission ?? 'ANY'),
  };
}

/** CreateAcls to any broker (it forwards to the controller). */
export async function createAcls(
  call: AdminCall,
  bindings: readonly AclBindingInput[],
): Promise<CreateAclsResult> {
  if (bindings.length === 0) return { results: [] };
  const normalized = bindings.map(normalizeBinding);
  let version = 0;
  const response = await call.cluster.sendAny(
    CreateAclsApi,
    (v) => {
      version = v;
      return createCreateAclsRequest({
        creations: normalized.map((b) => ({
          resourceType: code(RESOURCE_TYPES, b.resourceType),
          resourceName: b.resourceName,
          resourcePatternType: code(PATTERN_TYPES, b.patternType),
          principal: b.principal,
          host: b.host,
          operation: code(OPERATIONS, b.operation),
          permissionType: code(PERMISSIONS, b.permission),
        })),
      });
    },
    call.sendOptions(),
  );
  // Results come back in request order (CreateAclsResponse has no key to match on).
  return {
    results: normalized.map((binding, i) => {
      const r = response.results[i];
      const context = `CreateAcls v${version}, ${binding.resourceType} ${binding.resourceName}`;
      const error =
        r === undefined
          ? ProtocolError.fromCode(ErrorCode.UNKNOWN_SERVER_ERROR, `${context}: no answer`)
          : errorOrUndefined(r.errorCode, context, r.errorMessage);
      return error === undefined ? { binding } : { binding, error };
    }),
  };
}

/**
 * DescribeAcls to any broker. One filter is one request: its error (SECURITY_DISABLED,
 * CLUSTER_AUTHORIZATION_FAILED) is the whole call's, thrown as a `ProtocolError`.
 */
export async function describeAcls(
  call: AdminCall,
  filter: AclBindingFilter,
): Promise<DescribeAclsResult> {
  const response = await call.cluster.sendAny(
    DescribeAclsApi,
    () => createDescribeAclsRequest(filterFields(filter)),
    call.sendOptions(),
  );
  const bindings = response.resources.flatMap((r) =>
    r.acls.map((a) =>
      fromWire({
        resourceType: r.resourceType,
        resourceName: r.resourceName,
        patternType: r.patternType,
        principal: a.principal,
        host: a.host,
        operation: a.operation,
        permissionType: a.permissionType,
      }),
    ),
  );
  return { bindings };
}

/** DeleteAcls to any broker (it forwards to the controller). */
export async function deleteAcls(
  call: AdminCall,
  filters: readonly AclBindingFilter[],
): Promise<DeleteAclsResult> {
  if (filters.length === 0) return { results: [] };
  let version = 0;
  const response = await call.cluster.sendAny(
    DeleteAclsApi,
    (v) => {
      version = v;
      return createDeleteAclsRequest({ filters: filters.map(filterFields) });
    },
    call.sendOptions(),
  );
  const context = `DeleteAcls v${version}`;
  return {
    results: filters.map((filter, i): DeleteAclsFilterResult => {
      const r = response.filterResults[i];
      if (r === undefined) {
        const error = ProtocolError.fromCode(
          ErrorCode.UNKNOWN_SERVER_ERROR,
          `${context}: no answer`,
        );
        return { filter, error, deleted: [] };
      }
      const error = errorOrUndefined(r.errorCode, `${context}, filter ${i}`, r.errorMessage);
      return {
        filter,
        ...(error === undefined ? {} : { error }),
        deleted: r.matchingAcls.map((m) => {
          const binding = fromWire(m);
          const e = errorOrUndefined(m.errorCode, `${context}, ${m.resourceName}`, m.errorMessage);
          return e === undefined ? { binding } : { binding, error: e };
        }),
      };
    }),
  };
}
