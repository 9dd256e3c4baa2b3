import { ago, type CommandContext, withCluster } from '../context.js';
import { brokerApiVersions } from './api-versions.js';

/** `kafkats cluster --json`. */
export interface ClusterDocument {
  readonly clusterId: string;
  /** The controller id the broker reports (KRaft: a broker that forwards to the active controller); null when none. */
  readonly controllerId: number | null;
  /** How old the metadata shown is, ms, when printed. */
  readonly metadataAgeMs: number;
  readonly brokers: readonly {
    readonly nodeId: number;
    readonly host: string;
    readonly port: number;
    readonly rack: string | null;
    readonly fenced: boolean;
    /** API keys the broker offers (ApiVersions), or null when it could not be asked. */
    readonly apiCount: number | null;
    /** Finalized feature levels the broker reports (`metadata.version`, `kraft.version`, ...). */
    readonly features: Readonly<Record<string, number>>;
    readonly error?: string;
  }[];
  readonly topics: number;
  readonly partitions: number;
}

/** `kafkats cluster`: id, controller, brokers with racks and versions, metadata age. */
export async function clusterCommand(ctx: CommandContext): Promise<void> {
  const doc = await withCluster(ctx, async (cluster, admin): Promise<ClusterDocument> => {
    const [description, versions] = await Promise.all([
      admin.describeCluster({ includeFencedBrokers: true, timeoutMs: ctx.settings.timeoutMs }),
      brokerApiVersions(cluster),
    ]);
    const snapshot = cluster.snapshot();
    const byNode = new Map(versions.map((v) => [v.nodeId, v]));
    return {
      clusterId: description.clusterId,
      controllerId: description.controllerId ?? null,
      metadataAgeMs: Date.now() - snapshot.fetchedAtMs,
      brokers: description.brokers.map((b) => {
        const v = byNode.get(b.nodeId);
        return {
          nodeId: b.nodeId,
          host: b.host,
          port: b.port,
          rack: b.rack,
          fenced: b.isFenced,
          apiCount:
            v === undefined || v.error !== undefined
              ? null
              : v.apis.filter((a) => a.broker !== null).length,
          features: v?.finalizedFeatures ?? {},
          ...(v?.error === undefined ? {} : { error: v.error }),
        };
      }),
      topics: snapshot.topics.length,
      partitions: snapshot.topics.reduce((n, t) => n + t.partitions.length, 0),
    };
  });
  const { term } = ctx;
  if (term.json) {
    term.document(doc);
    return;
  }
  const c = term.colors;
  term.line(`${c.bold('cluster')}     ${doc.clusterId}`);
  term.line(`${c.bold('controller')}  ${doc.controllerId ?? c.red('none')}`);
  term.line(
    `${c.bold('metadata')}    as of ${ago(doc.metadataAgeMs)} ago, ${doc.topics} topics, ${doc.partitions} partitions`,
  );
  term.line();
  term.table(
    ['NODE', 'ADDRESS', 'RACK', 'STATE', 'APIS', 'FEATURES'],
    doc.brokers.map((b) => [
      String(b.nodeId) + (b.nodeId === doc.controllerId ? '*' : ''),
      `${b.host}:${b.port}`,
      b.rack ?? '-',
      b.fenced ? 'fenced' : b.error !== undefined ? 'unreachable' : 'up',
      b.apiCount === null ? '-' : String(b.apiCount),
      Object.entries(b.features)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ') || '-',
    ]),
    (_r, col, cell) => (col === 3 ? (cell.startsWith('up') ? c.green(cell) : c.red(cell)) : cell),
  );
  term.note('* the controller the broker reports');
}
