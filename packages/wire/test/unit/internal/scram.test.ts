import { describe, expect, it } from 'vitest';
import { ScramClient, ScramError } from '../../../src/internal/scram.js';

describe('ScramClient', () => {
  // RFC 7677 section 3: the SCRAM-SHA-256 example exchange.
  it('reproduces the RFC 7677 SCRAM-SHA-256 exchange', async () => {
    const c = new ScramClient('sha256', 'user', 'pencil', 'rOprNGfwEbeRWgbNEkqO');
    expect(c.first()).toBe('n,,n=user,r=rOprNGfwEbeRWgbNEkqO');
    const serverFirst =
      'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096';
    expect(await c.final(serverFirst)).toBe(
      'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
    );
    expect(() => c.verify('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=')).not.toThrow();
    expect(() => c.verify('v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=')).toThrow(ScramError);
  });

  it('escapes , and = in the user name', () => {
    expect(new ScramClient('sha512', 'a,b=c', 'x', 'N').first()).toBe('n,,n=a=2Cb=3Dc,r=N');
  });

  it('refuses a server nonce that does not extend ours, low iteration counts and errors', async () => {
    const c = new ScramClient('sha512', 'u', 'secret-password', 'abc');
    c.first();
    await expect(c.final('r=zzz123,s=AAAA,i=4096')).rejects.toThrow(ScramError);
    await expect(c.final('r=abc123,s=AAAA,i=10')).rejects.toThrow(/iteration/);
    await expect(c.final('r=abc123,s=AAAA,i=99999999')).rejects.toThrow(/iteration/);
    await expect(c.final('e=unknown-user')).rejects.toThrow(/unknown-user/);
    await expect(c.final('garbage')).rejects.toThrow(/malformed/);
    const err = await c.final('r=zzz,s=AAAA,i=4096').catch((e: Error) => e);
    expect(String(err)).not.toContain('secret-password');
  });
});
