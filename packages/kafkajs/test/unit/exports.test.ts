import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import * as facade from '../../src/index.js';

const require = createRequire(import.meta.url);
const kafkajs = require('kafkajs') as Record<string, unknown>;

describe('the package exports kafkajs 2.2.4 values', () => {
  it("every value kafkajs exports, and nothing of kats's own but kafkajs 1.x's ResourceTypes", () => {
    const ours = Object.keys(facade).sort();
    const theirs = Object.keys(kafkajs).sort();
    expect(theirs.filter((k) => !ours.includes(k))).toEqual([]);
    expect(ours.filter((k) => !theirs.includes(k))).toEqual(['ResourceTypes']);
  });

  it('the enum-like objects hold the numbers kafkajs gives', () => {
    for (const name of [
      'logLevel',
      'CompressionTypes',
      'ConfigResourceTypes',
      'AclResourceTypes',
      'AclOperationTypes',
      'AclPermissionTypes',
      'ResourcePatternTypes',
      'ConfigSource',
    ]) {
      expect({ name, value: { ...(facade as Record<string, object>)[name] } }).toEqual({
        name,
        value: { ...(kafkajs[name] as object) },
      });
    }
  });

  it('error classes keep kafkajs names and inheritance', () => {
    for (const [name, value] of Object.entries(kafkajs)) {
      if (!name.startsWith('KafkaJS')) continue;
      const ours = (facade as Record<string, unknown>)[name] as { prototype: object };
      const theirs = value as { prototype: object };
      const parentOf = (c: { prototype: object }) =>
        (Object.getPrototypeOf(c.prototype) as { constructor: { name: string } }).constructor.name;
      expect({ name, parent: parentOf(ours) }).toEqual({ name, parent: parentOf(theirs) });
    }
  });
});
