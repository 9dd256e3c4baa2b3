import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { canBind, releasePorts, reservePorts } from '../../src/internal/ports.js';
import { isAlive, parseOwner, parseProcessGroup } from '../../src/reaper.js';

describe('reservePorts', () => {
  it('hands out distinct bindable ports and never the same one twice while held', async () => {
    const ports = await reservePorts(8);
    expect(new Set(ports).size).toBe(8);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(32_000);
      expect(await canBind(port)).toBe(true);
    }
    const more = await reservePorts(8);
    expect(more.filter((p) => ports.includes(p))).toEqual([]);
    releasePorts([...ports, ...more]);
  });

  it('skips a port something already listens on', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(24_321, '127.0.0.1', resolve));
    try {
      expect(await canBind(24_321)).toBe(false);
      // A random source stuck on the busy port, then moving on: the busy one is never returned.
      let calls = 0;
      const random = () => (calls++ < 5 ? (24_321 - 20_000) / 12_000 : 0.5);
      const [port] = await reservePorts(1, random);
      expect(port).not.toBe(24_321);
      releasePorts(port === undefined ? [] : [port]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('reaper parsing', () => {
  it('reads the owner pid from a NUL-separated command line', () => {
    expect(parseOwner(['java', '-Xmx1g', '-Dkafkats.owner=4242', 'kafka.Kafka'].join('\0'))).toBe(
      4242,
    );
    expect(parseOwner(['java', 'kafka.Kafka'].join('\0'))).toBeNull();
  });

  it('reads the process group from /proc/<pid>/stat even when the name has spaces and parens', () => {
    expect(parseProcessGroup('123 (sh (x) y) S 1 777 777 0 -1')).toBe(777);
    expect(parseProcessGroup('garbage')).toBeNull();
  });

  it('knows this process is alive', () => {
    expect(isAlive(process.pid)).toBe(true);
  });
});
