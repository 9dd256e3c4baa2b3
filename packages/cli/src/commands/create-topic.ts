import { CliError } from '../cli-error.js';
import { type CommandContext, rethrowActionable, withCluster } from '../context.js';

/** Flags of `kafkats create-topic`. */
export interface CreateTopicFlags {
  readonly partitions?: number;
  readonly replicationFactor?: number;
  /** `name=value` topic configs. */
  readonly config: readonly string[];
}

/** `kafkats create-topic NAME`: CreateTopics to the controller, then waits until every partition has a leader. */
export async function createTopicCommand(
  ctx: CommandContext,
  name: string,
  flags: CreateTopicFlags,
): Promise<void> {
  const configs: Record<string, string> = {};
  for (const c of flags.config) {
    const eq = c.indexOf('=');
    if (eq <= 0)
      throw new CliError('ERR_KAFKA_CLI_USAGE', `--config-entry "${c}" is not name=value`);
    configs[c.slice(0, eq)] = c.slice(eq + 1);
  }
  const created = await withCluster(ctx, async (_cluster, admin) => {
    const [t] = (
      await admin.createTopics(
        [
          {
            name,
            numPartitions: flags.partitions ?? -1,
            replicationFactor: flags.replicationFactor ?? -1,
            configs,
          },
        ],
        { waitForLeaders: true, timeoutMs: ctx.settings.timeoutMs },
      )
    ).topics;
    if (t?.error !== undefined) {
      if (t.error.errorName === 'TOPIC_ALREADY_EXISTS') {
        throw new CliError('ERR_KAFKA_CLI_BROKER', `topic ${name} already exists`, {
          cause: t.error,
        });
      }
      rethrowActionable(t.error, 'CREATE', { type: 'TOPIC', name });
    }
    return { name, topicId: t?.topicId ?? '' };
  });
  if (ctx.term.json) ctx.term.document(created);
  else ctx.term.line(`created topic ${created.name} ${ctx.term.colors.dim(created.topicId)}`);
}
