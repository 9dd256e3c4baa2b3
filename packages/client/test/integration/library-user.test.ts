// A new user's first hour, replayed: small scripts written from the README alone, run as child
// processes (an ES module, and the same code as CommonJS) against the shared cluster, with the
// mistakes users make. Each asserts what the user sees: the printed error and the exit code.
import { sharedCluster } from '@kafkats/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { runUserScript } from '../support/library-user.js';
import { unique } from './admin-support.js';

const shared = sharedCluster();
const FORMS = ['esm', 'cjs'] as const;
let topic: string;

beforeAll(async () => {
  topic = unique('first-hour');
  await shared.admin.createTopic(topic, { partitions: 2, replicationFactor: 3 });
});

describe('a library user’s first hour (child processes, ESM and CommonJS)', () => {
  it.each(FORMS)(
    '%s: producing to a topic that does not exist fails with an error naming the topic, exit 1',
    async (form) => {
      const missing = unique('no-such-topic');
      const run = await runUserScript(
        'missing-topic.mjs',
        { KAFKA_BOOTSTRAP: shared.bootstrap, TOPIC: missing },
        form,
      );
      expect(run.stderr).toContain(
        `ERR_KAFKA_PRODUCER_METADATA_TIMEOUT: topic "${missing}" does not exist`,
      );
      expect(run.stderr).toContain('instanceof ProducerBlockedError: true');
      expect(run.stdout).toBe('');
      expect(run.code).toBe(1);
    },
  );

  it.each(FORMS)(
    '%s: a consumer subscribed to a missing topic starts with nothing assigned and a warning naming it',
    async (form) => {
      const missing = unique('no-such-subscription');
      const run = await runUserScript(
        'missing-subscription.mjs',
        { KAFKA_BOOTSTRAP: shared.bootstrap, TOPIC: missing, GROUP: unique('first-hour-g') },
        form,
      );
      expect(run.stdout).toBe('assigned: []\n');
      expect(run.stderr).toContain('[KAFKATS_CONSUMER_TOPIC_MISSING] KafkatsWarning');
      expect(run.stderr).toContain(`subscribed topic "${missing}" does not exist`);
      expect(run.code).toBe(0);
    },
  );

  it.each(FORMS)(
    '%s: an un-awaited send too large for the transaction fails the commit, not the process; the abort runs',
    async (form) => {
      const run = await runUserScript(
        'unawaited-transaction.mjs',
        { KAFKA_BOOTSTRAP: shared.bootstrap, TOPIC: topic, TRANSACTIONAL_ID: unique('first-tx') },
        form,
      );
      expect(run.stdout).toBe(
        [
          'commit refused: ERR_KAFKA_TRANSACTION_ABORTABLE, cause ERR_KAFKA_PRODUCER_RECORD_TOO_LARGE',
          'cause instanceof RecordTooLargeError: true',
          'aborted',
          '',
        ].join('\n'),
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    },
  );

  it.each(FORMS)(
    '%s: error classes of every layer come from @kafkats/client; a closed cluster says ClusterClosedError',
    async (form) => {
      const run = await runUserScript(
        'errors.mjs',
        { KAFKA_BOOTSTRAP: shared.bootstrap, TOPIC: unique('no-such-topic') },
        form,
      );
      expect(run.stdout).toContain('ProtocolError: true UNKNOWN_TOPIC_OR_PARTITION');
      expect(run.stdout).toContain('ClusterClosedError: true ERR_KAFKA_CLUSTER_CLOSED');
      expect(run.stdout).toContain('KafkaError: true retriable=false');
      expect(run.stdout).toMatch(/message: .*the cluster is closed/);
      expect(run.stdout).not.toContain('broker pool');
      expect(run.stdout).toContain('classes: true');
      expect(run.code).toBe(0);
    },
  );

  it.each(FORMS)('%s: reading a closed consumer throws ConsumerClosedError', async (form) => {
    const run = await runUserScript(
      'closed-consumer.mjs',
      { KAFKA_BOOTSTRAP: shared.bootstrap, TOPIC: topic, GROUP: unique('first-hour-g') },
      form,
    );
    expect(run.stdout).toBe('ERR_KAFKA_CONSUMER_CLOSED ConsumerClosedError: true\n');
    expect(run.code).toBe(0);
  });

  it.each(FORMS)('%s: a live KIP-848 group can be described', async (form) => {
    const run = await runUserScript(
      'describe-group.mjs',
      { KAFKA_BOOTSTRAP: shared.bootstrap, TOPIC: topic, GROUP: unique('first-hour-g') },
      form,
    );
    expect(run.stdout).toMatch(
      /^type=consumer state=Stable error=none\nmember self epoch=\d+ partitions=2\n$/,
    );
    expect(run.code).toBe(0);
  });
});
