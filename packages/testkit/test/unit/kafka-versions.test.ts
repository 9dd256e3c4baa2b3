import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { kafkaVersionAtLeast, resolveKafkaVersion } from '../../src/dist.js';
import { packageRoot } from '../../src/internal/paths.js';

const pin = JSON.parse(
  readFileSync(join(packageRoot, '..', '..', 'fixtures', 'kafka-release.json'), 'utf8'),
) as { kafka: string; lines: Record<string, string>; log4j: string; reload4j: string };

interface DistModule {
  pom(version: string): string;
  loggingOf(version: string): 'log4j1' | 'log4j2';
}
const dist = (await import(
  pathToFileURL(join(packageRoot, 'bin', 'kafka-dist.mjs')).href
)) as DistModule;

describe('resolveKafkaVersion', () => {
  it('names the pinned release by default and for its own line', () => {
    expect(resolveKafkaVersion()).toBe(pin.kafka);
    expect(resolveKafkaVersion(pin.kafka.split('.').slice(0, 2).join('.'))).toBe(pin.kafka);
  });

  it('maps an older line to the patch pinned for it and keeps an exact release', () => {
    expect(Object.keys(pin.lines)).toEqual(expect.arrayContaining(['3.9', '4.0']));
    expect(resolveKafkaVersion('3.9')).toBe(pin.lines['3.9']);
    expect(resolveKafkaVersion('4.0')).toBe(pin.lines['4.0']);
    expect(resolveKafkaVersion('3.9.0')).toBe('3.9.0');
  });

  it('rejects releases older than 3.9, unpinned lines and malformed versions with a typed error', () => {
    for (const [bad, why] of [
      ['3.8', /not supported by the testkit \(oldest: 3\.9, KRaft only\)/],
      ['2.8.1', /not supported/],
      ['4.1', /no release pinned for Kafka 4\.1/],
      ['latest', /not a Kafka version/],
    ] as const) {
      let caught: unknown;
      try {
        resolveKafkaVersion(bad);
      } catch (error) {
        caught = error;
      }
      expect(caught, bad).toMatchObject({ code: 'ERR_KAFKA_TESTKIT_UNSUPPORTED' });
      expect((caught as Error).message, bad).toMatch(why);
    }
  });
});

describe('the jars assembled per release', () => {
  it('3.x brokers log through log4j 1 (reload4j), 4.x through log4j2', () => {
    expect(dist.loggingOf('3.9.2')).toBe('log4j1');
    expect(dist.loggingOf('4.0.2')).toBe('log4j2');
    expect(dist.loggingOf(pin.kafka)).toBe('log4j2');
  });

  it('an older release gets broker, storage and its logging binding, not the tools', () => {
    const old = dist.pom('3.9.2');
    expect(old).toContain('<artifactId>kafka_2.13</artifactId><version>3.9.2</version>');
    expect(old).toContain('<artifactId>kafka-storage</artifactId><version>3.9.2</version>');
    expect(old).toContain(`<artifactId>reload4j</artifactId><version>${pin.reload4j}</version>`);
    expect(old).not.toContain('log4j-core');
    expect(old).not.toContain('kafka-tools<');
    const four = dist.pom('4.0.2');
    expect(four).toContain(`<artifactId>log4j-core</artifactId><version>${pin.log4j}</version>`);
    expect(four).not.toContain('reload4j');
    expect(four).not.toContain('kafka-tools<');
  });

  it('the pinned release also brings kafka-tools, which every Java helper runs from', () => {
    const pinned = dist.pom(pin.kafka);
    expect(pinned).toContain(`<artifactId>kafka-tools</artifactId><version>${pin.kafka}</version>`);
    expect(pinned).toContain('log4j-slf4j2-impl');
  });
});

describe('kafkaVersionAtLeast', () => {
  it('compares releases numerically, a line meaning its first patch', () => {
    expect(kafkaVersionAtLeast('3.9.2', '4.0')).toBe(false);
    expect(kafkaVersionAtLeast('4.0.2', '4.0')).toBe(true);
    expect(kafkaVersionAtLeast('4.0.0', '4.0')).toBe(true);
    expect(kafkaVersionAtLeast('4.10.0', '4.9')).toBe(true);
    expect(kafkaVersionAtLeast('4.4.0', '4.4.1')).toBe(false);
    expect(kafkaVersionAtLeast('3.9.2', '3.9.2')).toBe(true);
    expect(() => kafkaVersionAtLeast('4.x', '4.0')).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_TESTKIT_UNSUPPORTED' }),
    );
  });
});
