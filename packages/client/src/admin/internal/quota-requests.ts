import {
  AlterClientQuotasApi,
  createAlterClientQuotasRequest,
  createDescribeClientQuotasRequest,
  DescribeClientQuotasApi,
  ErrorCode,
  ProtocolError,
} from '@kafkats/codec';
import type {
  AlterClientQuotasResult,
  ClientQuotaAlteration,
  ClientQuotaEntity,
  ClientQuotaFilter,
  DescribeClientQuotasResult,
} from '../quotas.js';
import { type AdminCall, brokerError, errorOrUndefined } from './admin-call.js';

// DescribeClientQuotasRequest's match types.
const MATCH_EXACT = 0;
const MATCH_DEFAULT = 1;
const MATCH_SPECIFIED = 2;

/** An entity as the wire's list of (type, name) pairs. */
function entityToWire(
  entity: ClientQuotaEntity,
): { entityType: string; entityName: string | null }[] {
  return Object.entries(entity).map(([entityType, entityName]) => ({ entityType, entityName }));
}

function entityFromWire(
  parts: readonly { entityType: string; entityName: string | null }[],
): ClientQuotaEntity {
  const entity: Record<string, string | null> = {};
  for (const p of parts) entity[p.entityType] = p.entityName;
  return entity;
}

/** One key per entity whatever the order of its parts (answers need not keep ours). */
function entityKey(parts: readonly { entityType: string; entityName: string | null }[]): string {
  return JSON.stringify(
    parts
      .map((p) => [p.entityType, p.entityName])
      .sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? '')),
  );
}

/** DescribeClientQuotas to any broker; a refusal of the request is the whole call's error. */
export async function describeClientQuotas(
  call: AdminCall,
  filter: ClientQuotaFilter,
): Promise<DescribeClientQuotasResult> {
  let version = 0;
  const response = await call.cluster.sendAny(
    DescribeClientQuotasApi,
    (v) => {
      version = v;
      return createDescribeClientQuotasRequest({
        components: (filter.components ?? []).map((c) => ({
          entityType: c.entityType,
          matchType:
            c.name === undefined ? MATCH_SPECIFIED : c.name === null ? MATCH_DEFAULT : MATCH_EXACT,
          match: c.name ?? null,
        })),
        strict: filter.strict ?? false,
      });
    },
    call.sendOptions(),
  );
  if (response.errorCode !== 0) {
    throw brokerError(
      response.errorCode,
      `DescribeClientQuotas v${version}`,
      response.errorMessage,
    );
  }
  return {
    entries: (response.entries ?? []).map((e) => {
      const quotas: Record<string, number> = {};
      for (const v of e.values) quotas[v.key] = v.value;
      return { entity: entityFromWire(e.entity), quotas };
    }),
  };
}

/** AlterClientQuotas to any broker (it forwards to the controller); results per entity. */
export async function alterClientQuotas(
  call: AdminCall,
  alterations: readonly ClientQuotaAlteration[],
  validateOnly: boolean,
): Promise<AlterClientQuotasResult> {
  if (alterations.length === 0) return { results: [] };
  let version = 0;
  const response = await call.cluster.sendAny(
    AlterClientQuotasApi,
    (v) => {
      version = v;
      return createAlterClientQuotasRequest({
        entries: alterations.map((a) => ({
          entity: entityToWire(a.entity),
          ops: a.ops.map((op) => ({
            key: op.key,
            value: op.value ?? 0,
            remove: op.value === null,
          })),
        })),
        validateOnly,
      });
    },
    call.sendOptions(),
  );
  const answers = new Map<string, { errorCode: number; errorMessage: string | null }>();
  for (const e of response.entries) answers.set(entityKey(e.entity), e);
  return {
    results: alterations.map((a) => {
      const context = `AlterClientQuotas v${version}, ${JSON.stringify(a.entity)}`;
      const answer = answers.get(entityKey(entityToWire(a.entity)));
      const error =
        answer === undefined
          ? ProtocolError.fromCode(ErrorCode.UNKNOWN_SERVER_ERROR, `${context}: no answer`)
          : errorOrUndefined(answer.errorCode, context, answer.errorMessage);
      return error === undefined ? { entity: a.entity } : { entity: a.entity, error };
    }),
  };
}
