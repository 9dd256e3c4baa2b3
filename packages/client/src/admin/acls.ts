import type { ProtocolError } from '@kafkats/codec';

/**
 * Kafka's `ResourceType` names; ANY only in filters, UNKNOWN for an id this release does not
 * know (a newer broker's).
 */
export type AclResourceType =
  | 'UNKNOWN'
  | 'ANY'
  | 'TOPIC'
  | 'GROUP'
  | 'CLUSTER'
  | 'TRANSACTIONAL_ID'
  | 'DELEGATION_TOKEN'
  | 'USER';

/** Kafka's `PatternType` names; ANY and MATCH only in filters; UNKNOWN as above. */
export type AclPatternType = 'UNKNOWN' | 'ANY' | 'MATCH' | 'LITERAL' | 'PREFIXED';

/** Kafka's `AclOperation` names; ANY only in filters; UNKNOWN as above. */
export type AclOperation =
  | 'UNKNOWN'
  | 'ANY'
  | 'ALL'
  | 'READ'
  | 'WRITE'
  | 'CREATE'
  | 'DELETE'
  | 'ALTER'
  | 'DESCRIBE'
  | 'CLUSTER_ACTION'
  | 'DESCRIBE_CONFIGS'
  | 'ALTER_CONFIGS'
  | 'IDEMPOTENT_WRITE'
  | 'CREATE_TOKENS'
  | 'DESCRIBE_TOKENS'
  | 'TWO_PHASE_COMMIT';

/** Every {@link AclOperation}, in the order of Kafka's `AclOperation` codes (UNKNOWN is 0). */
export const ACL_OPERATIONS: readonly AclOperation[] = [
  'UNKNOWN',
  'ANY',
  'ALL',
  'READ',
  'WRITE',
  'CREATE',
  'DELETE',
  'ALTER',
  'DESCRIBE',
  'CLUSTER_ACTION',
  'DESCRIBE_CONFIGS',
  'ALTER_CONFIGS',
  'IDEMPOTENT_WRITE',
  'CREATE_TOKENS',
  'DESCRIBE_TOKENS',
  'TWO_PHASE_COMMIT',
];

/** Kafka's `AclPermissionType` names; ANY only in filters; UNKNOWN as above. */
export type AclPermissionType = 'UNKNOWN' | 'ANY' | 'DENY' | 'ALLOW';

/** An ACL binding to create (Kafka's `AclBinding`). */
export interface AclBindingInput {
  readonly resourceType: Exclude<AclResourceType, 'ANY' | 'UNKNOWN'>;
  readonly resourceName: string;
  /** Default LITERAL. */
  readonly patternType?: 'LITERAL' | 'PREFIXED';
  /** `User:alice`. */
  readonly principal: string;
  /** Default `*` (any host). */
  readonly host?: string;
  readonly operation: Exclude<AclOperation, 'ANY' | 'UNKNOWN'>;
  /** Default ALLOW. */
  readonly permission?: Exclude<AclPermissionType, 'ANY' | 'UNKNOWN'>;
}

/** An ACL binding as a broker reports it; every field present. */
export interface AclBinding {
  readonly resourceType: AclResourceType;
  readonly resourceName: string;
  readonly patternType: AclPatternType;
  readonly principal: string;
  readonly host: string;
  readonly operation: AclOperation;
  readonly permission: AclPermissionType;
}

/**
 * A filter over ACL bindings (Kafka's `AclBindingFilter`). Omitted fields match anything:
 * types and operation default to ANY, names, principal and host to null (any).
 * `patternType` MATCH finds the bindings that apply to `resourceName` (literal, wildcard and
 * prefixed ones).
 */
export interface AclBindingFilter {
  readonly resourceType?: AclResourceType;
  readonly resourceName?: string | null;
  /** Default ANY. */
  readonly patternType?: AclPatternType;
  readonly principal?: string | null;
  readonly host?: string | null;
  readonly operation?: AclOperation;
  readonly permission?: AclPermissionType;
}

/** {@link Admin.createAcls}' answer: one entry per binding, in request order. */
export interface CreateAclsResult {
  readonly results: readonly { readonly binding: AclBinding; readonly error?: ProtocolError }[];
}

/** One filter's outcome in {@link DeleteAclsResult}. */
export interface DeleteAclsFilterResult {
  readonly filter: AclBindingFilter;
  /** The filter's refusal (SECURITY_DISABLED, CLUSTER_AUTHORIZATION_FAILED, ...). */
  readonly error?: ProtocolError;
  /** The bindings the filter matched, each deleted unless it has an `error`. */
  readonly deleted: readonly { readonly binding: AclBinding; readonly error?: ProtocolError }[];
}

/** {@link Admin.describeAcls}' answer. */
export interface DescribeAclsResult {
  /** Every binding matching the filter, as the broker listed them. */
  readonly bindings: readonly AclBinding[];
}

/** {@link Admin.deleteAcls}' answer: one entry per filter, in request order. */
export interface DeleteAclsResult {
  readonly results: readonly DeleteAclsFilterResult[];
}
