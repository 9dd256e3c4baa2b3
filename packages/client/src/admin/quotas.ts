import type { ProtocolError } from '@kafkats/codec';

/**
 * A client quota entity (Kafka's `ClientQuotaEntity`): entity type (`user`, `client-id`,
 * `ip`) to name. A null name is the type's default entity (`<default>` in Kafka's tools), so
 * `{ user: 'alice', 'client-id': null }` is alice's default for any client id.
 */
export type ClientQuotaEntity = Readonly<Record<string, string | null>>;

/**
 * One part of a {@link ClientQuotaFilter} (Kafka's `ClientQuotaFilterComponent`): a name
 * matches that entity only; null matches the default entity; an omitted name matches every
 * entity of the type that has a name.
 */
export interface ClientQuotaFilterComponent {
  readonly entityType: string;
  readonly name?: string | null;
}

/**
 * Which quota entities {@link Admin.describeClientQuotas} reports (Kafka's
 * `ClientQuotaFilter`). No components: every entity. `strict`: only entities made of exactly
 * the component types (Kafka's `containsOnly`); default false (`contains`).
 */
export interface ClientQuotaFilter {
  readonly components?: readonly ClientQuotaFilterComponent[];
  readonly strict?: boolean;
}

/** {@link Admin.describeClientQuotas}' answer. */
export interface DescribeClientQuotasResult {
  /** Every matching entity with its quotas (`producer_byte_rate`, `consumer_byte_rate`, ...). */
  readonly entries: readonly {
    readonly entity: ClientQuotaEntity;
    readonly quotas: Readonly<Record<string, number>>;
  }[];
}

/**
 * Changes to one entity's quotas (Kafka's `ClientQuotaAlteration`): each op sets `key` to
 * `value`, or removes it when `value` is null.
 */
export interface ClientQuotaAlteration {
  readonly entity: ClientQuotaEntity;
  readonly ops: readonly { readonly key: string; readonly value: number | null }[];
}

/** Options of {@link Admin.alterClientQuotas}. */
export interface AlterClientQuotasOptions {
  /** Have the broker check the changes without making them; default false. */
  readonly validateOnly?: boolean;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** {@link Admin.alterClientQuotas}' answer: one entry per alteration, in request order. */
export interface AlterClientQuotasResult {
  readonly results: readonly {
    readonly entity: ClientQuotaEntity;
    /** Why this entity's changes were refused (INVALID_REQUEST, CLUSTER_AUTHORIZATION_FAILED...). */
    readonly error?: ProtocolError;
  }[];
}
