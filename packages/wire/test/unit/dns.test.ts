import { describe, expect, it } from 'vitest';
import { formatBrokerAddress, parseBrokerAddress, resolveBrokerHost } from '../../src/dns.js';

describe('parseBrokerAddress', () => {
  it('parses host:port, IPv4 and bracketed IPv6 literals', () => {
    expect(parseBrokerAddress('kafka-1.example:9092')).toEqual({
      host: 'kafka-1.example',
      port: 9092,
    });
    expect(parseBrokerAddress('127.0.0.1:19092')).toEqual({ host: '127.0.0.1', port: 19092 });
    expect(parseBrokerAddress('[::1]:9092')).toEqual({ host: '::1', port: 9092 });
    expect(parseBrokerAddress(' [fe80::1:2]:1 ')).toEqual({ host: 'fe80::1:2', port: 1 });
  });

  it('rejects missing ports, bad ports and unbracketed IPv6', () => {
    for (const bad of [
      'host',
      'host:',
      ':9092',
      'host:0',
      'host:65536',
      'host:9x',
      '::1:9092',
      '[::1]9092',
      '[nothex]:1',
    ]) {
      expect(() => parseBrokerAddress(bad), bad).toThrow(TypeError);
    }
  });

  it('formats IPv6 with brackets', () => {
    expect(formatBrokerAddress({ host: '::1', port: 9092 })).toBe('[::1]:9092');
    expect(formatBrokerAddress({ host: 'a', port: 1 })).toBe('a:1');
  });
});

describe('resolveBrokerHost', () => {
  it('puts IPv4 first, keeps resolver order within a family and drops duplicates', async () => {
    const got = await resolveBrokerHost('broker', async () => [
      { address: '::1', family: 6 },
      { address: '10.0.0.2', family: 4 },
      { address: 'fd00::2', family: 6 },
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    expect(got.map((a) => a.address)).toEqual(['10.0.0.2', '127.0.0.1', '::1', 'fd00::2']);
  });

  it('does not ask the resolver about literals', async () => {
    const refuse = async () => {
      throw new Error('resolver must not be called');
    };
    expect(await resolveBrokerHost('::1', refuse)).toEqual([{ address: '::1', family: 6 }]);
    expect(await resolveBrokerHost('127.0.0.1', refuse)).toEqual([
      { address: '127.0.0.1', family: 4 },
    ]);
  });

  it('asks again on every call (a broker can move)', async () => {
    let calls = 0;
    const resolver = async () => {
      calls++;
      return [{ address: `127.0.0.${calls}`, family: 4 as const }];
    };
    expect((await resolveBrokerHost('b', resolver))[0]?.address).toBe('127.0.0.1');
    expect((await resolveBrokerHost('b', resolver))[0]?.address).toBe('127.0.0.2');
  });
});
