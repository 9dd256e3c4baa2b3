import { readFileSync } from 'node:fs';
import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import { CliError } from './cli-error.js';
import {
  type AclFlags,
  aclsAddCommand,
  aclsListCommand,
  aclsRemoveCommand,
} from './commands/acls.js';
import { apiVersionsCommand } from './commands/api-versions.js';
import { clusterCommand } from './commands/cluster.js';
import { type BytesEncoding, consumeCommand } from './commands/consume.js';
import { createTopicCommand } from './commands/create-topic.js';
import { featuresCommand, featuresUpdateCommand } from './commands/features.js';
import {
  groupsDeleteOffsetsCommand,
  groupsDescribeCommand,
  groupsResetOffsetsCommand,
  parseDateTime,
  parseDuration,
  parseResetFile,
  type ResetMode,
} from './commands/group-offsets.js';
import { groupsCommand, groupsDeleteCommand } from './commands/groups.js';
import { offsetsCommand } from './commands/offsets.js';
import { type ProduceFlags, produceCommand } from './commands/produce.js';
import { quotasCommand } from './commands/quotas.js';
import {
  reassignCancelCommand,
  reassignStartCommand,
  reassignStatusCommand,
} from './commands/reassign.js';
import { rlmmSegmentsCommand, rlmmStatusCommand, rlmmTailCommand } from './commands/rlmm.js';
import {
  type ShareResetMode,
  shareGroupsDeleteCommand,
  shareGroupsDeleteOffsetsCommand,
  shareGroupsDescribeCommand,
  shareGroupsListCommand,
  shareGroupsResetOffsetsCommand,
} from './commands/share-groups.js';
import {
  configsCommand,
  topicAddPartitionsCommand,
  topicDeleteCommand,
} from './commands/topic-admin.js';
import { topicCommand, topicsCommand } from './commands/topics.js';
import {
  transactionsAbortCommand,
  transactionsCommand,
  transactionsDescribeCommand,
  transactionsFindHangingCommand,
  transactionsProducersCommand,
} from './commands/transactions.js';
import { usersAlterCommand, usersCommand } from './commands/users.js';
import type { ChangeFlags } from './confirm.js';
import type { CommandContext } from './context.js';
import { type ConnectionFlags, resolveSettings } from './settings.js';
import { Terminal, type TerminalIo } from './terminal.js';

/** Global flags every command takes. */
export interface GlobalFlags extends ConnectionFlags {
  readonly json?: boolean;
  readonly color?: boolean;
  readonly debug?: boolean;
}

function intArg(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be an integer >= 0`);
    return Number(value);
  };
}

function collectInts(name: string) {
  const parse = intArg(name);
  return (value: string, previous: number[] | undefined): number[] => [
    ...(previous ?? []),
    ...value.split(',').map((v) => parse(v.trim())),
  ];
}

const collect = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  value,
];

/** The flags of `groups reset-offsets` as commander parses them. */
interface ResetFlags extends ChangeFlags {
  readonly topic: string[];
  readonly allTopics?: boolean;
  readonly toEarliest?: boolean;
  readonly toLatest?: boolean;
  readonly toCurrent?: boolean;
  readonly toOffset?: string;
  readonly shiftBy?: string;
  readonly toDatetime?: string;
  readonly byDuration?: string;
  readonly fromFile?: string;
}

/**
 * The reset's mode from its flags: exactly one of them.
 * @throws CliError `ERR_KAFKA_CLI_USAGE` for none or several, or a value that does not parse
 */
function resetOptions(group: string, o: ResetFlags) {
  const integer = (flag: string, text: string) => {
    if (!/^-?\d+$/.test(text))
      throw new CliError(
        'ERR_KAFKA_CLI_USAGE',
        `${flag} takes an integer, got ${JSON.stringify(text)}`,
      );
    return BigInt(text);
  };
  const modes: ResetMode[] = [];
  if (o.toEarliest) modes.push({ kind: 'earliest' });
  if (o.toLatest) modes.push({ kind: 'latest' });
  if (o.toCurrent) modes.push({ kind: 'current' });
  if (o.toOffset !== undefined)
    modes.push({ kind: 'offset', offset: integer('--to-offset', o.toOffset) });
  if (o.shiftBy !== undefined) modes.push({ kind: 'shift', by: integer('--shift-by', o.shiftBy) });
  if (o.toDatetime !== undefined)
    modes.push({ kind: 'timestamp', timestamp: parseDateTime(o.toDatetime) });
  if (o.byDuration !== undefined)
    modes.push({ kind: 'timestamp', timestamp: BigInt(Date.now()) - parseDuration(o.byDuration) });
  if (o.fromFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(o.fromFile, 'utf8');
    } catch (cause) {
      throw new CliError('ERR_KAFKA_CLI_INPUT_INVALID', `cannot read ${o.fromFile}`, { cause });
    }
    modes.push({ kind: 'file', offsets: parseResetFile(text, group) });
  }
  const [mode] = modes;
  if (mode === undefined || modes.length > 1)
    throw new CliError(
      'ERR_KAFKA_CLI_USAGE',
      'give exactly one of --to-earliest, --to-latest, --to-current, --to-offset, --shift-by, --to-datetime, --by-duration, --from-file',
    );
  return {
    topics: o.topic,
    allTopics: o.allTopics === true,
    mode,
    ...(o.execute === undefined ? {} : { execute: o.execute }),
    ...(o.dryRun === undefined ? {} : { dryRun: o.dryRun }),
    ...(o.yes === undefined ? {} : { yes: o.yes }),
  };
}

/** The flags of `share-groups reset-offsets` as commander parses them. */
interface ShareResetFlags extends ChangeFlags {
  readonly group: string;
  readonly topic: string[];
  readonly allTopics?: boolean;
  readonly toEarliest?: boolean;
  readonly toLatest?: boolean;
  readonly toOffset?: string;
}

/**
 * The share-group reset's options from its flags: exactly one mode.
 * @throws CliError `ERR_KAFKA_CLI_USAGE` for none or several, or an offset that does not parse
 */
function shareResetOptions(o: ShareResetFlags) {
  const modes: ShareResetMode[] = [];
  if (o.toEarliest) modes.push({ kind: 'earliest' });
  if (o.toLatest) modes.push({ kind: 'latest' });
  if (o.toOffset !== undefined) {
    if (!/^\d+$/.test(o.toOffset))
      throw new CliError(
        'ERR_KAFKA_CLI_USAGE',
        `--to-offset takes an offset >= 0, got ${JSON.stringify(o.toOffset)}`,
      );
    modes.push({ kind: 'offset', offset: BigInt(o.toOffset) });
  }
  const [mode] = modes;
  if (mode === undefined || modes.length > 1)
    throw new CliError(
      'ERR_KAFKA_CLI_USAGE',
      'give exactly one of --to-earliest, --to-latest, --to-offset',
    );
  return {
    topics: o.topic,
    allTopics: o.allTopics === true,
    mode,
    ...(o.execute === undefined ? {} : { execute: o.execute }),
    ...(o.dryRun === undefined ? {} : { dryRun: o.dryRun }),
    ...(o.yes === undefined ? {} : { yes: o.yes }),
  };
}

/** Adds the flags of a command that changes the cluster (see confirm.ts). */
function changing(command: Command): Command {
  return command
    .option('--execute', 'carry the change out (without it, only the plan is shown)')
    .option('--dry-run', 'show the plan and change nothing, even with --execute')
    .option('-y, --yes', 'do not ask for confirmation on a terminal');
}

/** Where an action hands its work to {@link buildProgram}'s caller. */
export type Runner = (
  work: (ctx: CommandContext) => Promise<void>,
  command: Command,
) => Promise<void>;

/**
 * The command tree. Actions do not run anything themselves: they pass their work to `run`,
 * which builds the context (terminal, settings, signal) from the global flags.
 */
export function buildProgram(io: TerminalIo, run: Runner): Command {
  const program = new Command('kafkats')
    .description(
      'Look at and talk to a Kafka cluster: topics, offsets, records, groups, tiered-storage metadata.',
    )
    .version('0.1.0', '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride()
    .option('-b, --bootstrap <host:port,...>', 'bootstrap brokers (env KAFKATS_BOOTSTRAP)')
    .option(
      '-c, --config <file>',
      'JSON config file: bootstrap, tls, sasl, readOnly, clientId, timeoutMs',
    )
    .option('--read-only', "refuse anything that changes the cluster (meta's read-only gate)")
    .option('--timeout <ms>', 'deadline of each cluster operation', undefined)
    .option('--client-id <id>', 'client id sent to the brokers (default kafkats-cli)')
    .option('--tls', 'connect with TLS (implied by --tls-ca, --tls-cert, --tls-key)')
    .option('--tls-ca <file>', 'CA certificate(s) to trust, PEM')
    .option('--tls-cert <file>', 'client certificate for mutual TLS, PEM')
    .option('--tls-key <file>', 'client private key for mutual TLS, PEM')
    .option('--tls-servername <name>', 'host name to expect in the broker certificate')
    .addOption(
      new Option('--sasl-mechanism <mechanism>', 'SASL mechanism').choices([
        'PLAIN',
        'SCRAM-SHA-256',
        'SCRAM-SHA-512',
        'OAUTHBEARER',
        'AWS_MSK_IAM',
      ]),
    )
    .option('--sasl-username <user>', 'SASL user name')
    .option(
      '--sasl-password <password>',
      'SASL password (prefer env KAFKATS_SASL_PASSWORD: flags show in ps)',
    )
    .option('--sasl-token-endpoint <url>', 'OAUTHBEARER: OAuth token endpoint (client credentials)')
    .option('--sasl-client-id <id>', 'OAUTHBEARER: OAuth client id')
    .option(
      '--sasl-client-secret <secret>',
      'OAUTHBEARER: OAuth client secret (prefer env KAFKATS_SASL_CLIENT_SECRET)',
    )
    .option('--sasl-scope <scope>', 'OAUTHBEARER: scope to ask the token endpoint for')
    .option(
      '--sasl-token-file <file>',
      'OAUTHBEARER: a file holding the token (re-read on each login)',
    )
    .option(
      '--sasl-aws-region <region>',
      'AWS_MSK_IAM: the cluster region (default: from the broker host names, then AWS_REGION)',
    )
    .option(
      '--sasl-aws-profile <profile>',
      'AWS_MSK_IAM: the AWS profile to take credentials from (default: the AWS SDK chain)',
    )
    .option('--json', 'machine-readable output: one JSON document (one per line when streaming)')
    .option('--no-color', 'no colour, no spinner (also NO_COLOR=1)')
    .option('--debug', 'print stack traces of failures');

  program
    .command('cluster')
    .description(
      'cluster id, controller, brokers (racks, API counts, feature levels), metadata age',
    )
    .action((_o, cmd: Command) => run((ctx) => clusterCommand(ctx), cmd));

  program
    .command('topics')
    .description(
      'every topic: partitions, replication factor, offline and under-replicated partitions',
    )
    .option('--internal', 'include internal topics (__consumer_offsets, ...)')
    .action((o: { internal?: boolean }, cmd: Command) => run((ctx) => topicsCommand(ctx, o), cmd));

  const topic = program
    .command('topic')
    .description('one topic: partitions, leaders, ISR, offline replicas, configs')
    .argument('<name>', 'topic name')
    .option('--all-configs', 'list every config, not only those set')
    .action((name: string, o: { allConfigs?: boolean }, cmd: Command) =>
      run((ctx) => topicCommand(ctx, name, o), cmd),
    );
  changing(
    topic
      .command('delete')
      .description('delete topics and every record in them (DeleteTopics)')
      .argument('<name...>', 'topic names'),
  ).action((names: string[], o: ChangeFlags, cmd: Command) =>
    run((ctx) => topicDeleteCommand(ctx, names, o), cmd),
  );
  changing(
    topic
      .command('add-partitions')
      .description('raise the partition count of a topic (CreatePartitions)')
      .argument('<name>', 'topic name')
      .requiredOption('--count <n>', 'the partition count after the change', intArg('--count')),
  ).action((name: string, o: ChangeFlags & { count: number }, cmd: Command) =>
    run((ctx) => topicAddPartitionsCommand(ctx, name, o), cmd),
  );
  changing(
    program
      .command('configs')
      .description(
        "a topic's or a broker's configs set (as kafka-configs.sh --describe); with --set / --delete, changed (IncrementalAlterConfigs)",
      )
      .addArgument(new Argument('<kind>', 'what to look at').choices(['topic', 'broker']))
      .argument('<name>', "topic name, or broker id ('' for the cluster-wide default)")
      .option('--set <name=value>', 'set a config (repeatable)', collect, [])
      .option('--delete <name>', 'set a config back to its default (repeatable)', collect, [])
      .option('--all', 'list every config, defaults included'),
  ).action(
    (
      kind: 'topic' | 'broker',
      name: string,
      o: ChangeFlags & { set: string[]; delete: string[]; all?: boolean },
      cmd: Command,
    ) => run((ctx) => configsCommand(ctx, kind, name, o), cmd),
  );

  program
    .command('create-topic')
    .description('create a topic and wait until every partition has a leader')
    .argument('<name>', 'topic name')
    .option(
      '-P, --partitions <n>',
      "partitions (default: the broker's num.partitions)",
      intArg('--partitions'),
    )
    .option(
      '-R, --replication-factor <n>',
      "replicas (default: the broker's default.replication.factor)",
      intArg('--replication-factor'),
    )
    .option('--config-entry <name=value>', 'topic config (repeatable)', collect, [])
    .action(
      (
        name: string,
        o: { partitions?: number; replicationFactor?: number; configEntry: string[] },
        cmd: Command,
      ) => run((ctx) => createTopicCommand(ctx, name, { ...o, config: o.configEntry }), cmd),
    );

  program
    .command('api-versions')
    .description(
      "per broker and API: the broker's version range, kafkats' range and the version used",
    )
    .option('--all', 'also list APIs the broker does not offer')
    .action((o: { all?: boolean }, cmd: Command) => run((ctx) => apiVersionsCommand(ctx, o), cmd));

  program
    .command('offsets')
    .description('earliest, latest and max-timestamp offsets per partition')
    .argument('<topic>', 'topic name')
    .option(
      '-p, --partition <n>',
      'only these partitions (repeat or comma-separate)',
      collectInts('--partition'),
    )
    .action((topic: string, o: { partition?: number[] }, cmd: Command) =>
      run((ctx) => offsetsCommand(ctx, topic, o), cmd),
    );

  program
    .command('produce')
    .description(
      'write records from stdin (a line each, or JSON objects with --format json) or --value',
    )
    .argument('<topic>', 'topic name')
    .addOption(
      new Option('-f, --format <format>', 'stdin format')
        .choices(['lines', 'json'])
        .default('lines'),
    )
    .option('-k, --key <key>', 'key of every record')
    .option('--key-separator <sep>', 'lines are key<sep>value')
    .option('-H, --header <name=value>', 'header on every record (repeatable)', collect, [])
    .option('-p, --partition <n>', 'write to this partition', intArg('--partition'))
    .option('--value <value>', 'write one record with this value instead of reading stdin')
    .addOption(
      new Option('--acks <acks>', 'acknowledgements').choices(['all', '1', '0']).default('all'),
    )
    .addOption(
      new Option('--compression <codec>', 'batch compression')
        .choices(['none', 'gzip', 'snappy', 'lz4', 'zstd'])
        .default('none'),
    )
    .action((topic: string, o: ProduceFlags & { header: string[] }, cmd: Command) =>
      run((ctx) => produceCommand(ctx, topic, { ...o, headers: o.header }), cmd),
    );

  program
    .command('consume')
    .description('read records with the partition readers (no group, no commits)')
    .argument('<topic>', 'topic name')
    .option(
      '--from <where>',
      'earliest, latest, an offset, @<ms since epoch> or an ISO date',
      'earliest',
    )
    .option(
      '-p, --partition <n>',
      'only these partitions (repeat or comma-separate)',
      collectInts('--partition'),
    )
    .option('-n, --count <n>', 'stop after this many records', intArg('--count'))
    .option('-F, --follow', 'keep waiting for new records (until Ctrl-C or --count)')
    .addOption(
      new Option('--encoding <encoding>', 'bytes in --json output')
        .choices(['utf8', 'base64'])
        .default('utf8'),
    )
    .addOption(
      new Option('--isolation <level>', 'isolation level')
        .choices(['read_uncommitted', 'read_committed'])
        .default('read_uncommitted'),
    )
    .action(
      (
        topic: string,
        o: {
          from: string;
          partition?: number[];
          count?: number;
          follow?: boolean;
          encoding: BytesEncoding;
          isolation: 'read_uncommitted' | 'read_committed';
        },
        cmd: Command,
      ) => run((ctx) => consumeCommand(ctx, topic, o), cmd),
    );

  const groups = program
    .command('groups')
    .description(
      'consumer and other groups (ListGroups on every broker), described; or only the named ones',
    )
    .argument('[group...]', 'group ids to describe')
    .action((names: string[], _o, cmd: Command) => run((ctx) => groupsCommand(ctx, names), cmd));
  groups
    .command('describe')
    .description(
      'per partition: committed offset, log end offset and lag, with the owning member (as kafka-consumer-groups.sh --describe); then the members',
    )
    .argument('<group...>', 'group ids')
    .action((names: string[], _o, cmd: Command) =>
      run((ctx) => groupsDescribeCommand(ctx, names), cmd),
    );
  changing(
    groups
      .command('reset-offsets')
      .description(
        'compute new committed offsets for an inactive group and show them; commit them with --execute (as kafka-consumer-groups.sh --reset-offsets)',
      )
      .argument('<group>', 'group id')
      .option('--topic <topic[:p,...]>', 'partitions to reset (repeatable)', collect, [])
      .option('--all-topics', 'every partition the group has committed offsets for')
      .option('--to-earliest', 'the log start offset')
      .option('--to-latest', 'the log end offset')
      .option('--to-current', 'the committed offset (the log end where none)')
      .option('--to-offset <offset>', 'this offset (kept within the log)')
      .option('--shift-by <n>', 'the committed offset plus n (negative moves back)')
      .option(
        '--to-datetime <when>',
        'the first offset at or after YYYY-MM-DDTHH:mm:SS.sss[zone] (no zone: UTC)',
      )
      .option('--by-duration <duration>', 'the first offset at or after now minus PnDTnHnMnS')
      .option('--from-file <csv>', 'offsets from a file of topic,partition,offset lines'),
  ).action((group: string, o: ResetFlags, cmd: Command) =>
    run((ctx) => groupsResetOffsetsCommand(ctx, group, resetOptions(group, o)), cmd),
  );
  changing(
    groups
      .command('delete')
      .description(
        'delete groups (their committed offsets and metadata); Kafka refuses groups with members',
      )
      .argument('<group...>', 'group ids'),
  ).action((names: string[], o: ChangeFlags, cmd: Command) =>
    run((ctx) => groupsDeleteCommand(ctx, names, o), cmd),
  );
  changing(
    groups
      .command('delete-offsets')
      .description("delete a group's committed offsets of some partitions (OffsetDelete)")
      .argument('<group>', 'group id')
      .option('--topic <topic[:p,...]>', 'partitions (repeatable)', collect, []),
  ).action((group: string, o: ChangeFlags & { topic: string[] }, cmd: Command) =>
    run((ctx) => groupsDeleteOffsetsCommand(ctx, group, { ...o, topics: o.topic }), cmd),
  );

  const shareGroups = program
    .command('share-groups')
    .description(
      'KIP-932 share groups (kafka-share-groups.sh): list, describe, reset-offsets, delete',
    );
  shareGroups
    .command('list')
    .description('every share group and its state (ListGroups on every broker, type share)')
    .option(
      '--state <state>',
      'only groups in this state: Empty, Stable, Dead (repeatable)',
      collect,
      [],
    )
    .action((o: { state: string[] }, cmd: Command) =>
      run((ctx) => shareGroupsListCommand(ctx, o.state), cmd),
    );
  shareGroups
    .command('describe')
    .description(
      'state and coordinator, start offset and lag per partition, and members with their assignments',
    )
    .requiredOption('--group <group>', 'a share group id (repeatable)', collect, [])
    .action((o: { group: string[] }, cmd: Command) =>
      run((ctx) => shareGroupsDescribeCommand(ctx, o.group), cmd),
    );
  changing(
    shareGroups
      .command('reset-offsets')
      .description(
        'compute new start offsets for a share group without members and show them; set them with --execute',
      )
      .requiredOption('--group <group>', 'the share group id')
      .option('--topic <topic[:p,...]>', 'partitions to reset (repeatable)', collect, [])
      .option('--all-topics', 'every partition the group has state for')
      .option('--to-earliest', 'the log start offset')
      .option('--to-latest', 'the log end offset')
      .option('--to-offset <offset>', 'this offset (kept within the log)'),
  ).action((o: ShareResetFlags, cmd: Command) =>
    run((ctx) => shareGroupsResetOffsetsCommand(ctx, o.group, shareResetOptions(o)), cmd),
  );
  changing(
    shareGroups
      .command('delete')
      .description('delete share groups; refused unless each is a share group and Empty')
      .requiredOption('--group <group>', 'a share group id (repeatable)', collect, []),
  ).action((o: ChangeFlags & { group: string[] }, cmd: Command) =>
    run((ctx) => shareGroupsDeleteCommand(ctx, o.group, o), cmd),
  );
  changing(
    shareGroups
      .command('delete-offsets')
      .description("delete a share group's state for whole topics (DeleteShareGroupOffsets)")
      .requiredOption('--group <group>', 'the share group id')
      .option('--topic <topic>', 'a topic (repeatable)', collect, []),
  ).action((o: ChangeFlags & { group: string; topic: string[] }, cmd: Command) =>
    run((ctx) => shareGroupsDeleteOffsetsCommand(ctx, o.group, { ...o, topics: o.topic }), cmd),
  );

  const acls = program
    .command('acls')
    .description('ACL bindings (kafka-acls.sh): list, add, remove');
  /** kafka-acls.sh's resource, principal, operation and host flags. */
  const aclFlags = (command: Command, principals: 'filter' | 'grant') => {
    command
      .option('--topic <name>', 'a topic (with a prefixed pattern: a prefix)')
      .option('--group <name>', 'a consumer group')
      .option('--cluster', 'the cluster')
      .option('--transactional-id <id>', 'a transactional id')
      .option(
        '--resource-pattern-type <type>',
        principals === 'grant'
          ? 'literal (default) or prefixed'
          : 'literal, prefixed, match or any',
      )
      .option('--operation <op>', 'READ, WRITE, DESCRIBE, ... (repeatable)', collect, [])
      .option('--host <host>', principals === 'grant' ? 'the host (default *)' : 'only this host');
    if (principals === 'grant')
      command
        .option('--allow-principal <Type:name>', 'principal to allow (repeatable)', collect, [])
        .option('--deny-principal <Type:name>', 'principal to deny (repeatable)', collect, []);
    else command.option('--principal <Type:name>', 'only this principal');
    return command;
  };
  const aclRun = (work: typeof aclsListCommand) => (o: Partial<AclFlags>, cmd: Command) =>
    run(
      (ctx) =>
        work(ctx, {
          ...o,
          allowPrincipal: o.allowPrincipal ?? [],
          denyPrincipal: o.denyPrincipal ?? [],
          operation: o.operation ?? [],
        }),
      cmd,
    );
  aclFlags(
    acls.command('list').description('the bindings matching the flags (every binding without)'),
    'filter',
  ).action(aclRun(aclsListCommand));
  changing(
    aclFlags(
      acls
        .command('add')
        .description('add bindings: every principal given with every operation, on the resource'),
      'grant',
    ),
  ).action(aclRun(aclsAddCommand));
  changing(
    aclFlags(
      acls
        .command('remove')
        .description(
          'remove the bindings matching the flags (a resource or a principal is required)',
        ),
      'filter',
    ),
  ).action(aclRun(aclsRemoveCommand));

  const features = program
    .command('features')
    .description(
      'finalized feature levels and the levels a broker supports (kafka-features.sh describe)',
    )
    .action((_o, cmd: Command) => run((ctx) => featuresCommand(ctx), cmd));
  for (const direction of ['upgrade', 'downgrade'] as const) {
    const sub = features
      .command(direction)
      .description(`${direction} finalized feature levels (UpdateFeatures)`)
      .option('--feature <name=level>', 'the feature and its new level (repeatable)', collect, []);
    if (direction === 'downgrade')
      sub.option('--unsafe', 'allow a downgrade that may lose metadata');
    changing(sub).action((o: ChangeFlags & { feature: string[]; unsafe?: boolean }, cmd: Command) =>
      run((ctx) => featuresUpdateCommand(ctx, direction, o), cmd),
    );
  }

  changing(
    program
      .command('quotas')
      .description(
        'client quotas (kafka-configs.sh --entity-type users/clients/ips): listed; with --set / --delete, changed',
      )
      .option('--user <name>', 'a user (<default> for the default user)')
      .option('--client-id <id>', 'a client id (<default> for the default client)')
      .option('--ip <address>', 'an IP address (<default> for the default IP)')
      .option(
        '--set <key=value>',
        'set a quota, e.g. producer_byte_rate=1048576 (repeatable)',
        collect,
        [],
      )
      .option('--delete <key>', 'remove a quota (repeatable)', collect, []),
  ).action(
    (
      o: ChangeFlags & {
        user?: string;
        clientId?: string;
        ip?: string;
        set: string[];
        delete: string[];
      },
      cmd: Command,
    ) => run((ctx) => quotasCommand(ctx, o), cmd),
  );

  const users = program
    .command('users')
    .description("SCRAM users: each one's mechanisms and iterations (never the secret)")
    .argument('[user...]', 'only these users')
    .action((names: string[], _o, cmd: Command) => run((ctx) => usersCommand(ctx, names), cmd));
  for (const action of ['set', 'delete'] as const) {
    const sub = users
      .command(action)
      .description(
        action === 'set'
          ? 'set a SCRAM credential from a password (env KAFKATS_USER_PASSWORD or --password-stdin), salted here'
          : 'delete a SCRAM credential',
      )
      .argument('<user>', 'user name')
      .requiredOption('--mechanism <mechanism>', 'SCRAM-SHA-256 or SCRAM-SHA-512');
    if (action === 'set')
      sub
        .option(
          '--iterations <n>',
          'iterations (default 4096, the minimum)',
          intArg('--iterations'),
        )
        .option('--password-stdin', 'read the password from the first line of stdin');
    changing(sub).action(
      (
        user: string,
        o: ChangeFlags & { mechanism: string; iterations?: number; passwordStdin?: boolean },
        cmd: Command,
      ) => run((ctx) => usersAlterCommand(ctx, action, user, o), cmd),
    );
  }

  const reassign = program
    .command('reassign')
    .description(
      'move partitions between brokers (kafka-reassign-partitions.sh): start, status, cancel',
    );
  changing(
    reassign
      .command('start')
      .description(
        "start moving partitions to the replicas of a plan file (Kafka's reassignment JSON)",
      )
      .requiredOption(
        '--plan <file>',
        '{"version":1,"partitions":[{"topic","partition","replicas"}]}',
      ),
  ).action((o: ChangeFlags & { plan: string }, cmd: Command) =>
    run((ctx) => reassignStartCommand(ctx, o), cmd),
  );
  reassign
    .command('status')
    .description(
      'each planned partition: in-progress, complete or not-started (as --verify); without --plan, every ongoing move',
    )
    .option('--plan <file>', 'the plan file')
    .action((o: { plan?: string }, cmd: Command) =>
      run((ctx) => reassignStatusCommand(ctx, o), cmd),
    );
  changing(
    reassign
      .command('cancel')
      .description("cancel the plan's moves still in progress")
      .requiredOption('--plan <file>', 'the plan file'),
  ).action((o: ChangeFlags & { plan: string }, cmd: Command) =>
    run((ctx) => reassignCancelCommand(ctx, o), cmd),
  );

  const transactions = program
    .command('transactions')
    .description('transactions the coordinators know (kafka-transactions.sh list)')
    .option('--state <state>', 'only this state, e.g. Ongoing (repeatable)', collect, [])
    .option(
      '--producer-id <id>',
      'only this producer id (repeatable)',
      (value: string, previous: string[] | undefined) => {
        if (!/^\d+$/.test(value))
          throw new InvalidArgumentError('--producer-id must be a producer id (an integer)');
        return [...(previous ?? []), value];
      },
      [],
    )
    .option('--duration-ms <ms>', 'only those running longer than this', intArg('--duration-ms'))
    .action((o: { state: string[]; producerId: string[]; durationMs?: number }, cmd: Command) =>
      run((ctx) => transactionsCommand(ctx, o), cmd),
    );
  transactions
    .command('describe')
    .description('each transaction: coordinator, producer id and epoch, state, timeout, partitions')
    .argument('<transactional-id...>', 'transactional ids')
    .action((ids: string[], _o, cmd: Command) =>
      run((ctx) => transactionsDescribeCommand(ctx, ids), cmd),
    );
  transactions
    .command('producers')
    .description(
      "a partition's active producers and the start of each open transaction (kafka-transactions.sh describe-producers)",
    )
    .requiredOption('--topic <topic>', 'the topic')
    .option('--partition <n>', 'only this partition (default: every one)', intArg('--partition'))
    .option(
      '--broker-id <id>',
      "this replica's view instead of the leader's",
      intArg('--broker-id'),
    )
    .action((o: { topic: string; partition?: number; brokerId?: number }, cmd: Command) =>
      run((ctx) => transactionsProducersCommand(ctx, o), cmd),
    );
  transactions
    .command('find-hanging')
    .description(
      'open transactions no coordinator will finish (kafka-transactions.sh find-hanging)',
    )
    .option('--topic <topic>', 'search this topic')
    .option('--partition <n>', 'only this partition of --topic', intArg('--partition'))
    .option(
      '--broker-id <id>',
      'search the partitions with a replica on this broker',
      intArg('--broker-id'),
    )
    .option(
      '--max-transaction-timeout <min>',
      'the longest transaction timeout in use, minutes: open transactions idle longer are candidates',
      intArg('--max-transaction-timeout'),
      15,
    )
    .action(
      (
        o: { topic?: string; partition?: number; brokerId?: number; maxTransactionTimeout: number },
        cmd: Command,
      ) => run((ctx) => transactionsFindHangingCommand(ctx, o), cmd),
    );
  changing(
    transactions
      .command('abort')
      .description(
        'abort a hanging transaction on one partition (kafka-transactions.sh abort; needs CLUSTER_ACTION)',
      )
      .requiredOption('--topic <topic>', 'the topic')
      .requiredOption('--partition <n>', 'the partition', intArg('--partition'))
      .option(
        '--start-offset <offset>',
        "the transaction's first offset (from `transactions producers`)",
        (v: string) => {
          if (!/^\d+$/.test(v))
            throw new InvalidArgumentError('--start-offset must be an offset (an integer)');
          return v;
        },
      )
      .option('--producer-id <id>', 'or: the producer id', (v: string) => {
        if (!/^\d+$/.test(v))
          throw new InvalidArgumentError('--producer-id must be a producer id (an integer)');
        return v;
      })
      .option('--producer-epoch <n>', "and the producer's epoch", intArg('--producer-epoch'))
      .option(
        '--coordinator-epoch <n>',
        'and the coordinator epoch (-1 is taken as 0)',
        (v: string) => {
          if (!/^-?\d+$/.test(v))
            throw new InvalidArgumentError('--coordinator-epoch must be an integer');
          return Number(v);
        },
      ),
  ).action(
    (
      o: ChangeFlags & {
        topic: string;
        partition: number;
        startOffset?: string;
        producerId?: string;
        producerEpoch?: number;
        coordinatorEpoch?: number;
      },
      cmd: Command,
    ) => {
      // `transactions` (the list) takes --producer-id too, and commander gives a flag the
      // parent knows to the parent: take it back from there.
      const listed: string[] = cmd.parent?.opts().producerId ?? [];
      const producerId = o.producerId ?? listed[0];
      return run((ctx) => {
        if (listed.length + (o.producerId === undefined ? 0 : 1) > 1)
          throw new CliError('ERR_KAFKA_CLI_USAGE', 'abort takes one --producer-id');
        return transactionsAbortCommand(ctx, {
          ...o,
          ...(producerId === undefined ? {} : { producerId }),
        });
      }, cmd);
    },
  );

  const rlmm = program
    .command('rlmm')
    .description(
      'tiered-storage metadata (__remote_log_metadata) as the RemoteLogMetadataManager sees it',
    );
  const metadataTopic = () =>
    new Option('--metadata-topic <name>', 'the metadata topic').default('__remote_log_metadata');
  rlmm
    .command('status')
    .description(
      'metadata partitions with records: end offsets, what the manager read, lag, events, user partitions',
    )
    .addOption(metadataTopic())
    .action((o: { metadataTopic: string }, cmd: Command) =>
      run((ctx) => rlmmStatusCommand(ctx, o), cmd),
    );
  rlmm
    .command('tail')
    .description('decoded metadata events as they arrive (Ctrl-C stops)')
    .addOption(metadataTopic())
    .option('--from-beginning', 'start at offset 0 of every metadata partition')
    .option('-n, --count <n>', 'stop after this many events', intArg('--count'))
    .action((o: { metadataTopic: string; fromBeginning?: boolean; count?: number }, cmd: Command) =>
      run((ctx) => rlmmTailCommand(ctx, o), cmd),
    );
  rlmm
    .command('segments')
    .description("one user partition's remote segment table, as the manager materialises it")
    .argument('<topic>', 'user topic name')
    .argument('<partition>', 'partition', intArg('<partition>'))
    .addOption(metadataTopic())
    .option('--topic-id <id>', 'the topic id (base64url), for a topic that no longer exists')
    .action(
      (
        topic: string,
        partition: number,
        o: { metadataTopic: string; topicId?: string },
        cmd: Command,
      ) => run((ctx) => rlmmSegmentsCommand(ctx, topic, partition, o), cmd),
    );

  return program;
}

/** The context of a command from its global flags. */
export function contextOf(io: TerminalIo, flags: GlobalFlags, signal: AbortSignal): CommandContext {
  const term = new Terminal(io, { json: flags.json === true, color: flags.color !== false });
  return { term, settings: resolveSettings(flags, io.env), signal };
}
