import {
  ACL_OPERATIONS,
  type AclBinding,
  type AclBindingFilter,
  type AclBindingInput,
  type AclOperation,
  type AclPatternType,
  type AclResourceType,
} from '@kafkats/client';
import { CliError } from '../cli-error.js';
import { type ChangeFlags, mayChange } from '../confirm.js';
import { type CommandContext, rethrowActionable, withCluster } from '../context.js';

/** The resource flags of `kafkats acls` (kafka-acls.sh's names). */
export interface AclResourceFlags {
  readonly topic?: string;
  readonly group?: string;
  readonly cluster?: boolean;
  readonly transactionalId?: string;
  /** `literal` (default for add), `prefixed`; for list and remove also `match` and `any`. */
  readonly resourcePatternType?: string;
}

/** Every flag of `kafkats acls list|add|remove`. */
export interface AclFlags extends AclResourceFlags, ChangeFlags {
  readonly allowPrincipal: readonly string[];
  readonly denyPrincipal: readonly string[];
  readonly principal?: string;
  readonly operation: readonly string[];
  readonly host?: string;
}

/** The operations a binding can name (not the filter-only ANY, nor UNKNOWN). */
const OPERATIONS: readonly AclOperation[] = ACL_OPERATIONS.filter(
  (o) => o !== 'ANY' && o !== 'UNKNOWN',
);

const usage = (message: string) => new CliError('ERR_KAFKA_CLI_USAGE', message);

/** The one resource the flags name, or undefined for none. */
function resourceOf(
  flags: AclResourceFlags,
): { type: Exclude<AclResourceType, 'ANY' | 'UNKNOWN'>; name: string } | undefined {
  const named: { type: Exclude<AclResourceType, 'ANY' | 'UNKNOWN'>; name: string }[] = [];
  if (flags.topic !== undefined) named.push({ type: 'TOPIC', name: flags.topic });
  if (flags.group !== undefined) named.push({ type: 'GROUP', name: flags.group });
  if (flags.cluster === true) named.push({ type: 'CLUSTER', name: 'kafka-cluster' });
  if (flags.transactionalId !== undefined)
    named.push({ type: 'TRANSACTIONAL_ID', name: flags.transactionalId });
  if (named.length > 1)
    throw usage('name one resource: --topic, --group, --cluster or --transactional-id');
  return named[0];
}

function patternOf(flags: AclResourceFlags, allowed: readonly AclPatternType[]): AclPatternType {
  const p = (flags.resourcePatternType ?? allowed[0] ?? 'LITERAL').toUpperCase() as AclPatternType;
  if (!allowed.includes(p))
    throw usage(
      `--resource-pattern-type takes ${allowed.map((a) => a.toLowerCase()).join(', ')} here, got ${flags.resourcePatternType}`,
    );
  return p;
}

function operationsOf(flags: AclFlags): AclOperation[] {
  return flags.operation.map((o) => {
    const op = o.toUpperCase().replace(/-/g, '_') as AclOperation;
    if (!OPERATIONS.includes(op))
      throw usage(`unknown --operation ${o}; one of ${OPERATIONS.join(', ')}`);
    return op;
  });
}

function principalOk(p: string): string {
  if (!/^[^:]+:.+$/.test(p)) throw usage(`a principal is Type:name (User:alice), got ${p}`);
  return p;
}

/** The filters `list` and `remove` send: one per operation asked for (ANY without). */
export function aclFilters(flags: AclFlags, patternDefault: AclPatternType): AclBindingFilter[] {
  const resource = resourceOf(flags);
  const patternType = patternOf(flags, [patternDefault, 'LITERAL', 'PREFIXED', 'MATCH', 'ANY']);
  const base: AclBindingFilter = {
    resourceType: resource?.type ?? 'ANY',
    resourceName: resource?.name ?? null,
    patternType,
    principal: flags.principal === undefined ? null : principalOk(flags.principal),
    host: flags.host ?? null,
  };
  const ops = operationsOf(flags);
  return ops.length === 0 ? [base] : ops.map((operation) => ({ ...base, operation }));
}

/** The bindings `add` creates: every principal with every operation on the resource. */
export function aclBindings(flags: AclFlags): Required<AclBindingInput>[] {
  const resource = resourceOf(flags);
  if (resource === undefined)
    throw usage('name the resource: --topic, --group, --cluster or --transactional-id');
  const patternType = patternOf(flags, ['LITERAL', 'PREFIXED']) as 'LITERAL' | 'PREFIXED';
  const ops = operationsOf(flags);
  if (ops.length === 0) throw usage('give --operation (repeatable)');
  const principals = [
    ...flags.allowPrincipal.map((p) => ({
      principal: principalOk(p),
      permission: 'ALLOW' as const,
    })),
    ...flags.denyPrincipal.map((p) => ({ principal: principalOk(p), permission: 'DENY' as const })),
  ];
  if (principals.length === 0) throw usage('give --allow-principal or --deny-principal');
  return principals.flatMap(({ principal, permission }) =>
    ops.map((operation) => ({
      resourceType: resource.type,
      resourceName: resource.name,
      patternType,
      principal,
      host: flags.host ?? '*',
      operation: operation as Exclude<AclOperation, 'ANY' | 'UNKNOWN'>,
      permission,
    })),
  );
}

function showBindings(ctx: CommandContext, bindings: readonly AclBinding[]): void {
  const { term } = ctx;
  if (term.json) return;
  if (bindings.length === 0) {
    term.note('no ACL bindings match');
    return;
  }
  term.table(
    ['PRINCIPAL', 'PERMISSION', 'OPERATION', 'HOST', 'RESOURCE-TYPE', 'PATTERN', 'RESOURCE'],
    bindings.map((b) => [
      b.principal,
      b.permission,
      b.operation,
      b.host,
      b.resourceType,
      b.patternType,
      b.resourceName,
    ]),
  );
}

const CLUSTER = { type: 'CLUSTER', name: 'kafka-cluster' };

/** `kafkats acls list`: the bindings matching the flags (DescribeAcls). */
export async function aclsListCommand(ctx: CommandContext, flags: AclFlags): Promise<void> {
  const filters = aclFilters(flags, 'ANY');
  const bindings = await withCluster(ctx, async (_cluster, admin) => {
    const out: AclBinding[] = [];
    for (const filter of filters) {
      const answer = await admin
        .describeAcls(filter, { timeoutMs: ctx.settings.timeoutMs })
        .catch((e: unknown) => rethrowActionable(e, 'DESCRIBE', CLUSTER));
      out.push(...answer.bindings);
    }
    return out;
  });
  showBindings(ctx, bindings);
  if (ctx.term.json) ctx.term.document({ bindings });
}

/** `kafkats acls add`: the bindings to create, created with `--execute` (CreateAcls). */
export async function aclsAddCommand(ctx: CommandContext, flags: AclFlags): Promise<void> {
  const bindings = aclBindings(flags);
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const plan = bindings;
    showBindings(ctx, plan);
    if (!(await mayChange(ctx, flags, `add ${plan.length} ACL binding(s)`)))
      return { bindings: plan, executed: false };
    const answer = await admin.createAcls(bindings, { timeoutMs: ctx.settings.timeoutMs });
    const failed = answer.results.find((r) => r.error !== undefined);
    if (failed !== undefined) rethrowActionable(failed.error, 'ALTER', CLUSTER);
    ctx.term.note(`added ${plan.length} ACL binding(s)`);
    return { bindings: plan, executed: true };
  });
  if (ctx.term.json) ctx.term.document(result);
}

/**
 * `kafkats acls remove`: the bindings matching the flags (the filter's LITERAL pattern by
 * default, as kafka-acls.sh), deleted with `--execute` (DeleteAcls with the same filters).
 */
export async function aclsRemoveCommand(ctx: CommandContext, flags: AclFlags): Promise<void> {
  const filters = aclFilters(flags, 'LITERAL');
  if (filters.every((f) => f.resourceType === 'ANY' && f.principal === null))
    throw usage('name a resource or a --principal: refusing to remove every ACL');
  const timeoutMs = ctx.settings.timeoutMs;
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const matching: AclBinding[] = [];
    for (const filter of filters) {
      const answer = await admin
        .describeAcls(filter, { timeoutMs })
        .catch((e: unknown) => rethrowActionable(e, 'DESCRIBE', CLUSTER));
      matching.push(...answer.bindings);
    }
    showBindings(ctx, matching);
    if (
      matching.length === 0 ||
      !(await mayChange(ctx, flags, `remove ${matching.length} ACL binding(s)`))
    )
      return { bindings: matching, executed: false };
    const answer = await admin.deleteAcls(filters, { timeoutMs });
    const refused = answer.results.find((r) => r.error !== undefined);
    if (refused !== undefined) rethrowActionable(refused.error, 'ALTER', CLUSTER);
    const removed = answer.results.flatMap((r) =>
      r.deleted.filter((d) => d.error === undefined).map((d) => d.binding),
    );
    ctx.term.note(`removed ${removed.length} ACL binding(s)`);
    return { bindings: removed, executed: true };
  });
  if (ctx.term.json) ctx.term.document(result);
}
