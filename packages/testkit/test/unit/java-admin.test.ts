import { afterAll, describe, expect, it } from 'vitest';
import { JavaAdmin } from '../../src/index.js';

// The Java side of the protocol without a broker: the JVM answers ops that need no cluster,
// reports bad ops as typed errors, and a closed admin refuses further work.
describe('JavaAdmin process protocol (no broker)', () => {
  const admin = new JavaAdmin({ clientConfig: { 'bootstrap.servers': '127.0.0.1:1' } });
  afterAll(async () => {
    await admin.close();
  });

  it('answers ping, and concurrent requests each get their own reply', async () => {
    await Promise.all([admin.ping(), admin.ping(), admin.ping()]);
    expect(admin.bootstrap).toBe('127.0.0.1:1');
  });

  it('rejects an unknown op with a JavaAdminError naming the Java exception', async () => {
    await expect(admin.request('noSuchOp')).rejects.toMatchObject({
      code: 'ERR_KAFKA_TESTKIT_JAVA_ADMIN_REQUEST_FAILED',
      javaType: 'IllegalArgumentException',
      op: 'noSuchOp',
    });
  });

  it('refuses requests once closed', async () => {
    const other = new JavaAdmin({ clientConfig: { 'bootstrap.servers': '127.0.0.1:1' } });
    await other.ping();
    await other.close();
    await expect(other.ping()).rejects.toMatchObject({
      code: 'ERR_KAFKA_TESTKIT_JAVA_ADMIN_UNAVAILABLE',
    });
  });

  it('times out a request the JVM does not answer in time, with a typed error', async () => {
    // describeCluster against a closed port keeps Kafka's admin retrying far past 300 ms.
    await expect(admin.request('describeCluster', {}, 300)).rejects.toMatchObject({
      code: 'ERR_KAFKA_TESTKIT_JAVA_ADMIN_UNAVAILABLE',
    });
  });
});
