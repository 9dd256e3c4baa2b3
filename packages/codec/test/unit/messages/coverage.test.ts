// The generated set is complete: every API descriptor's request and response versions have a
// codec and an arbitrary in the table the property and fuzz suites iterate.
import { describe, expect, it } from 'vitest';
import { API_DESCRIPTORS, ApiKey, apiDescriptor } from '../../../src/index.js';
import { MESSAGE_CODECS } from '../../support/gen/arbitraries.js';

describe('generated coverage', () => {
  it('every API key has a request and a response codec over the same versions', () => {
    let requests = 0;
    let responses = 0;
    for (const d of API_DESCRIPTORS) {
      const req = MESSAGE_CODECS.find((c) => c.type === 'request' && c.apiKey === d.apiKey);
      const res = MESSAGE_CODECS.find((c) => c.type === 'response' && c.apiKey === d.apiKey);
      expect(req?.minVersion).toBe(d.minVersion);
      expect(req?.maxVersion).toBe(d.maxVersion);
      expect(res?.minVersion).toBe(d.minVersion);
      expect(res?.maxVersion).toBe(d.maxVersion);
      requests += d.maxVersion - d.minVersion + 1;
      responses += d.maxVersion - d.minVersion + 1;
    }
    expect(MESSAGE_CODECS.filter((c) => c.type === 'request').length).toBe(API_DESCRIPTORS.length);
    expect(requests).toBeGreaterThan(250);
    expect(responses).toBe(requests);
  });

  it('apiDescriptor finds by key and ApiKey names Kafka keys', () => {
    expect(ApiKey.Metadata).toBe(3);
    expect(ApiKey.ApiVersions).toBe(18);
    expect(apiDescriptor(3)?.name).toBe('Metadata');
    expect(apiDescriptor(4)).toBeUndefined(); // LeaderAndIsr: retired, no valid versions in 4.x
    expect(apiDescriptor(ApiKey.Metadata)?.requestHeaderVersion(8)).toBe(1);
    expect(apiDescriptor(ApiKey.Metadata)?.requestHeaderVersion(9)).toBe(2);
    expect(apiDescriptor(ApiKey.Metadata)?.responseHeaderVersion(9)).toBe(1);
    expect(apiDescriptor(ApiKey.ApiVersions)?.responseHeaderVersion(4)).toBe(0);
    expect(apiDescriptor(ApiKey.SaslHandshake)?.requestHeaderVersion(1)).toBe(1);
    expect(apiDescriptor(ApiKey.SaslHandshake)?.flexibleFrom).toBeNull();
  });
});
