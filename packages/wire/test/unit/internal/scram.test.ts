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

  // Golden values from Kafka 4.4.0's own ScramFormatter (kafka-clients jar): clientProof and
  // serverSignature for user "bob", nonces cnonce/snonce, salt "kafkats-salt-001", 4096
  // iterations. Kafka salts the password's raw UTF-8 bytes (ScramFormatter.normalize is
  // getBytes(UTF_8)); NFKC would turn the ligature, circled digit and full-width A into
  // "fix1A" and a broker-stored credential would never match.
  it.each([
    [
      'sha256',
      'mSpQBB8RyM/v2RhpPtwBP/zv1KECy7wBvktF64NqL10=',
      '01eigb/ZFlf0XusdlUlF7+rrSwvBhqXGXHx2nPow77E=',
    ],
    [
      'sha512',
      'j7AOmbt7/7jLIfXMKFK9mjweAU9N4SWTNnIbptmtsyhNArLgPIupmkG/yd2mRHlzcC7pFDALmTXtQQXgnlmUfA==',
      'ptJtsPWahqs5HLrtaB5zwJj0dFJyvuorpw+DshNRbMGpmx6tk/7h04w5tSh3k+AYE8SNNWsNYVR1zBnhYfY8TA==',
    ],
  ] as const)(
    'salts a non-ASCII password as Kafka does (%s, no NFKC)',
    async (hash, proof, signature) => {
      const c = new ScramClient(hash, 'bob', '\uFB01x\u2460\uFF21', 'cnonce');
      expect(c.first()).toBe('n,,n=bob,r=cnonce');
      expect(await c.final('r=cnoncesnonce,s=a2Fma2F0cy1zYWx0LTAwMQ==,i=4096')).toBe(
        `c=biws,r=cnoncesnonce,p=${proof}`,
      );
      expect(() => c.verify(`v=${signature}`)).not.toThrow();
    },
  );

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
