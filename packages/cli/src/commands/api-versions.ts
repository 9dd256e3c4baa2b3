import {
  API_DESCRIPTORS,
  ApiVersionsApi,
  type ApiVersionsResponse,
  apiDescriptor,
  createApiVersionsRequest,
} from '@kafkats/codec';
import type { Cluster } from '@kafkats/meta';
import { type CommandContext, withCluster } from '../context.js';

/** One API key as one broker and this client see it. */
export interface ApiVersionRow {
  readonly apiKey: number;
  readonly name: string;
  /** The broker's range, or null when it does not offer the API. */
  readonly broker: { readonly min: number; readonly max: number } | null;
  /** Our range, or null for an API key this client does not know. */
  readonly client: { readonly min: number; readonly max: number } | null;
  /** The version requests go at: the highest both support; null when there is none. */
  readonly negotiated: number | null;
}

/** What one broker answered to ApiVersions. */
export interface BrokerApiVersions {
  readonly nodeId: number;
  readonly address: string;
  readonly apis: readonly ApiVersionRow[];
  /** Finalized features (`metadata.version`, `kraft.version`, ...): name -> level. */
  readonly finalizedFeatures: Readonly<Record<string, number>>;
  /** Why the broker could not be asked, when it could not. */
  readonly error?: string;
}

/** Our range for an API: unstable latest versions are never sent, as the wire decides. */
function ourRange(apiKey: number): { min: number; max: number } | null {
  const d = apiDescriptor(apiKey);
  if (d === undefined) return null;
  return { min: d.minVersion, max: d.latestVersionUnstable ? d.maxVersion - 1 : d.maxVersion };
}

/** The rows of one ApiVersions answer: every key the broker or we know, ascending. */
export function apiVersionRows(response: Pick<ApiVersionsResponse, 'apiKeys'>): ApiVersionRow[] {
  const theirs = new Map(response.apiKeys.map((k) => [k.apiKey, k]));
  const keys = new Set<number>([...theirs.keys()]);
  for (const d of API_DESCRIPTORS) if (d.listeners.includes('broker')) keys.add(d.apiKey);
  return [...keys]
    .sort((a, b) => a - b)
    .map((apiKey) => {
      const t = theirs.get(apiKey);
      const ours = ourRange(apiKey);
      const broker = t === undefined ? null : { min: t.minVersion, max: t.maxVersion };
      const lo = broker !== null && ours !== null ? Math.max(broker.min, ours.min) : 1;
      const hi = broker !== null && ours !== null ? Math.min(broker.max, ours.max) : 0;
      return {
        apiKey,
        name: apiDescriptor(apiKey)?.name ?? `unknown(${apiKey})`,
        broker,
        client: ours,
        negotiated: lo <= hi ? hi : null,
      };
    });
}

/** Asks each broker of the snapshot for its ApiVersions (in parallel; a dead one gets an error). */
export async function brokerApiVersions(cluster: Cluster): Promise<BrokerApiVersions[]> {
  const brokers = [...cluster.snapshot().brokers].sort((a, b) => a.nodeId - b.nodeId);
  return Promise.all(
    brokers.map(async (b): Promise<BrokerApiVersions> => {
      const address = `${b.host}:${b.port}`;
      try {
        const response = await cluster.sendToNode(
          b.nodeId,
          ApiVersionsApi,
          createApiVersionsRequest({
            clientSoftwareName: 'kafkats-cli',
            clientSoftwareVersion: '0.1.0',
          }),
        );
        const finalizedFeatures: Record<string, number> = {};
        for (const f of response.finalizedFeatures) finalizedFeatures[f.name] = f.maxVersionLevel;
        return { nodeId: b.nodeId, address, apis: apiVersionRows(response), finalizedFeatures };
      } catch (error) {
        return {
          nodeId: b.nodeId,
          address,
          apis: [],
          finalizedFeatures: {},
          error: (error as Error).message,
        };
      }
    }),
  );
}

const range = (r: { min: number; max: number } | null) => (r === null ? '-' : `${r.min}-${r.max}`);

/** `kafkats api-versions`: per broker, the broker's range, ours and the negotiated version. */
export async function apiVersionsCommand(
  ctx: CommandContext,
  options: { all?: boolean },
): Promise<void> {
  const brokers = await withCluster(ctx, (cluster) => brokerApiVersions(cluster));
  const { term } = ctx;
  if (term.json) {
    term.document({ brokers });
    return;
  }
  const c = term.colors;
  for (const b of brokers) {
    term.line(c.bold(`broker ${b.nodeId} (${b.address})`));
    if (b.error !== undefined) {
      term.line(c.red(`  unreachable: ${b.error}`));
      continue;
    }
    const rows = b.apis.filter((a) => options.all === true || a.broker !== null);
    term.table(
      ['KEY', 'API', 'BROKER', 'KAFKATS', 'USED'],
      rows.map((a) => [
        String(a.apiKey),
        a.name,
        range(a.broker),
        range(a.client),
        a.negotiated === null ? '-' : `v${a.negotiated}`,
      ]),
      (_r, col, cell) => (col === 4 && cell.trim() === '-' ? c.yellow(cell) : cell),
    );
    term.line();
  }
}
