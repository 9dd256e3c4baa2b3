import { describe, expect, it } from 'vitest';
import { ConsumerConfigError } from '../../../src/index.js';
import { resolveShareConsumerOptions } from '../../../src/share/share-consumer-options.js';

describe('ShareConsumer options', () => {
  it("defaults as Kafka's share consumer does", () => {
    const o = resolveShareConsumerOptions({ groupId: 'g', topics: ['t', 't'] });
    expect(o).toMatchObject({
      topics: ['t'],
      acknowledgementMode: 'implicit',
      maxPollRecords: 500,
      fetchMaxWaitMs: 500,
      fetchMinBytes: 1,
      fetchMaxBytes: 52_428_800,
      rackId: null,
    });
  });

  it.each([
    [{ groupId: '', topics: ['t'] }, 'groupId'],
    [{ groupId: 'g', topics: [] }, 'topics'],
    [{ groupId: 'g', topics: ['t'], acknowledgementMode: 'auto' }, 'acknowledgementMode'],
    [{ groupId: 'g', topics: ['t'], maxPollRecords: 0 }, 'maxPollRecords'],
    [{ groupId: 'g', topics: ['t'], deserializers: { value: 1 } }, 'deserializers.value'],
  ])('refuses %j naming %s', (options, name) => {
    expect(() => resolveShareConsumerOptions(options as never)).toThrow(ConsumerConfigError);
    expect(() => resolveShareConsumerOptions(options as never)).toThrow(name);
  });
});
