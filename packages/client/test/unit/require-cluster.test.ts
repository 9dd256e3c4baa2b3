// A configuration object where the cluster goes (Java's `new KafkaProducer(props)`, kafkajs'
// `new Kafka({ brokers })`) is refused at construction with a message that says what to pass.
import type { Cluster } from '@kafkats/meta';
import { describe, expect, it } from 'vitest';
import {
  Admin,
  Consumer,
  MultiPartitionReader,
  PartitionReader,
  Producer,
  ShareConsumer,
} from '../../src/index.js';

const makers: [string, (cluster: unknown) => unknown][] = [
  ['Admin', (c) => new Admin(c as Cluster)],
  ['Producer', (c) => new Producer(c as Cluster)],
  ['Consumer', (c) => new Consumer(c as Cluster, { groupId: 'g' })],
  ['ShareConsumer', (c) => new ShareConsumer(c as Cluster, { groupId: 'g', topics: ['t'] })],
  [
    'PartitionReader',
    (c) => new PartitionReader(c as Cluster, { topic: 't', partition: 0, startOffset: 0n }),
  ],
  ['MultiPartitionReader', (c) => new MultiPartitionReader(c as Cluster, [])],
];

describe('a client class given something other than a cluster', () => {
  it.each(makers)('%s refuses a configuration object and names its keys', (name, make) => {
    expect(() => make({ bootstrapServers: ['localhost:9092'], clientId: 'app' })).toThrow(
      new TypeError(
        `${name} takes a connected cluster as its first argument (const cluster = await ` +
          `Cluster.connect('host:9092'), with connection settings in Cluster.connect's second ` +
          'argument); got an object with the keys bootstrapServers, clientId',
      ),
    );
  });

  it.each(makers)('%s refuses undefined, a string and an array', (name, make) => {
    for (const [value, described] of [
      [undefined, 'undefined'],
      ['localhost:9092', 'a string'],
      [['localhost:9092'], 'an array of 1'],
    ] as const) {
      expect(() => make(value)).toThrow(TypeError);
      expect(() => make(value)).toThrow(`${name} takes a connected cluster`);
      expect(() => make(value)).toThrow(`; got ${described}`);
    }
  });
});
