// The consumer's checks that need no broker, each compared with what kafkajs 2.2.4's own
// consumer does for the same call: error class names, messages, and the event names.
import { Kafka as KafkaJS, logLevel as kafkajsLogLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { Kafka, KafkaJSNonRetriableError, logLevel } from '../../src/index.js';

const facade = new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING });
const reference = new KafkaJS({ brokers: ['127.0.0.1:1'], logLevel: kafkajsLogLevel.NOTHING });

/** What a call throws (synchronously or by rejecting), as `name: message`. */
async function failure(call: () => unknown): Promise<string> {
  try {
    await call();
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
  return 'no error';
}

/** Runs `call` on a facade consumer and on a kafkajs consumer; both must fail alike. */
async function sameFailure(
  config: Record<string, unknown>,
  call: (c: {
    subscribe(s: unknown): unknown;
    seek(s: unknown): unknown;
    pause(s: unknown): unknown;
    resume(s: unknown): unknown;
    commitOffsets(s: unknown): unknown;
  }) => unknown,
): Promise<string> {
  // biome-ignore lint/suspicious/noExplicitAny: both consumers take the same untyped input here
  const ours = await failure(() => call(facade.consumer(config as any) as any));
  // biome-ignore lint/suspicious/noExplicitAny: as above
  const theirs = await failure(() => call(reference.consumer(config as any) as any));
  expect(ours).toBe(theirs);
  return ours;
}

describe('kafka.consumer(config)', () => {
  it('needs a groupId', async () => {
    expect(await sameFailure({}, () => undefined)).toBe(
      'KafkaJSNonRetriableError: Consumer groupId must be a non-empty string.',
    );
    expect(() => facade.consumer({ groupId: '' })).toThrow(KafkaJSNonRetriableError);
  });

  it('needs heartbeatInterval below sessionTimeout', async () => {
    expect(
      await sameFailure({ groupId: 'g', sessionTimeout: 3000, heartbeatInterval: 3000 }, () => 0),
    ).toMatch(/^KafkaJSNonRetriableError: Consumer heartbeatInterval \(3000\) must be lower/);
  });

  it('has kafkajs event names', () => {
    const ours = facade.consumer({ groupId: 'g' }).events;
    const theirs = reference.consumer({ groupId: 'g' }).events;
    expect({ ...ours }).toEqual({ ...theirs });
  });

  it('refuses a listener for an event it does not have', async () => {
    const c = facade.consumer({ groupId: 'g' });
    expect(() => c.on('consumer.nope', () => undefined)).toThrow(KafkaJSNonRetriableError);
    const ours = await failure(() => c.on('consumer.nope', () => undefined));
    const theirs = await failure(() =>
      // biome-ignore lint/suspicious/noExplicitAny: an event name kafkajs's type refuses
      reference.consumer({ groupId: 'g' }).on('consumer.nope' as any, () => undefined),
    );
    expect(ours).toBe(theirs);
    const remove = c.on(c.events.GROUP_JOIN, () => undefined);
    expect(typeof remove).toBe('function');
  });

  it("logs under kafkajs's Consumer namespace", () => {
    const lines: { namespace: string; message: string }[] = [];
    const k = new Kafka({
      brokers: ['127.0.0.1:1'],
      logLevel: logLevel.INFO,
      logCreator: () => (e) => lines.push({ namespace: e.namespace, message: e.log.message }),
    });
    k.consumer({ groupId: 'g' }).logger().info('hello');
    expect(lines).toEqual([{ namespace: 'Consumer', message: 'hello' }]);
  });
});

describe('subscribe', () => {
  it.each([
    ['no topics', {}],
    ['topics not an array', { topics: 'a' }],
    ['a topic that is neither string nor RegExp', { topics: [42] }],
    ['a null topic', { topic: null }],
  ])('rejects %s as kafkajs does', async (_, arg) => {
    const message = await sameFailure({ groupId: 'g' }, (c) => c.subscribe(arg));
    expect(message).toMatch(/^KafkaJSNonRetriableError: /);
  });

  it('accepts several calls before run, names and RegExps', async () => {
    const c = facade.consumer({ groupId: 'g' });
    await c.subscribe({ topic: 'a' });
    await c.subscribe({ topics: ['b', /^c-/], fromBeginning: true });
  });
});

describe('calls that need run()', () => {
  it.each([
    [
      'seek',
      (c: { seek(s: unknown): unknown }) => c.seek({ topic: 't', partition: 0, offset: '1' }),
    ],
    ['pause', (c: { pause(s: unknown): unknown }) => c.pause([{ topic: 't' }])],
    ['resume', (c: { resume(s: unknown): unknown }) => c.resume([{ topic: 't', partitions: [0] }])],
    [
      'commitOffsets',
      (c: { commitOffsets(s: unknown): unknown }) =>
        c.commitOffsets([{ topic: 't', partition: 0, offset: '1' }]),
    ],
  ])('%s before run fails as in kafkajs', async (_, call) => {
    expect(await sameFailure({ groupId: 'g' }, call as never)).toBe(
      'KafkaJSNonRetriableError: Consumer group was not initialized, consumer#run must be called first',
    );
  });

  it.each([
    ['a topic missing', { partition: 0, offset: '1' }],
    ['a partition that is not a number', { topic: 't', partition: 'x', offset: '1' }],
    ['an offset that is not a long', { topic: 't', partition: 0, offset: 'abc' }],
    ['a negative offset', { topic: 't', partition: 0, offset: '-5' }],
  ])('seek checks its input first: %s', async (_, arg) => {
    expect(await sameFailure({ groupId: 'g' }, (c) => c.seek(arg))).toMatch(
      /^KafkaJSNonRetriableError: (Invalid|Offset)/,
    );
  });

  it('seek accepts kafkajs special offsets -1 and -2 (then needs run)', async () => {
    for (const offset of ['-1', '-2'])
      expect(
        await sameFailure({ groupId: 'g' }, (c) => c.seek({ topic: 't', partition: 0, offset })),
      ).toMatch(/consumer#run must be called first/);
  });

  it.each([
    ['a negative offset', [{ topic: 't', partition: 0, offset: '-1' }]],
    ['metadata that is not a string', [{ topic: 't', partition: 0, offset: '1', metadata: 5 }]],
  ])('commitOffsets checks its input first: %s', async (_, arg) => {
    expect(await sameFailure({ groupId: 'g' }, (c) => c.commitOffsets(arg))).toMatch(
      /^KafkaJSNonRetriableError: /,
    );
  });

  it('pause checks its partitions first', async () => {
    expect(
      await sameFailure({ groupId: 'g' }, (c) => c.pause([{ topic: 't', partitions: 'x' }])),
    ).toMatch(/^KafkaJSNonRetriableError: Array of valid partitions required to pause/);
  });

  it('paused() before run is empty', () => {
    expect(facade.consumer({ groupId: 'g' }).paused()).toEqual([]);
  });

  it('stop() and disconnect() before connect resolve', async () => {
    const c = facade.consumer({ groupId: 'g' });
    await c.stop();
    await c.disconnect();
  });
});

describe('run()', () => {
  it('refuses subscribe once run() was called, even before it joined, as kafkajs', async () => {
    const c = facade.consumer({ groupId: 'g' });
    await c.subscribe({ topic: 't' });
    const crashes: unknown[] = [];
    c.on(c.events.CRASH, (e) => crashes.push(e));
    const running = c.run({ eachMessage: async () => undefined });
    await expect(c.subscribe({ topic: 'u' })).rejects.toThrow(
      'Cannot subscribe to topic while consumer is running',
    );
    // Stopped before it could connect (nothing listens on port 1): no crash, no restart.
    await c.stop();
    await running;
    expect(crashes).toEqual([]);
    await c.subscribe({ topic: 'u' });
  });

  it('rejects a partitionsConsumedConcurrently that is not a positive integer', async () => {
    const c = facade.consumer({ groupId: 'g' });
    await expect(c.run({ partitionsConsumedConcurrently: 0 })).rejects.toThrow(
      KafkaJSNonRetriableError,
    );
  });
});
