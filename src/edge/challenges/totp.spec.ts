import { base32, hotp, matchingStep, otpauthUri, totp } from './totp.js';

// RFC 6238 Appendix B: the seeds are the ASCII digits repeated to the hash's key length.
const SEED = {
  sha1: Buffer.from('12345678901234567890'),
  sha256: Buffer.from('12345678901234567890123456789012'),
  sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234'),
};

const VECTORS: Array<[number, string, string, string]> = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

describe('TOTP (RFC 6238)', () => {
  it.each(VECTORS)('at %i s gives the Appendix B codes for SHA-1, SHA-256 and SHA-512', (time, sha1, sha256, sha512) => {
    expect(totp(SEED.sha1, time, 8, 'sha1')).toBe(sha1);
    expect(totp(SEED.sha256, time, 8, 'sha256')).toBe(sha256);
    expect(totp(SEED.sha512, time, 8, 'sha512')).toBe(sha512);
  });

  it('gives the RFC 4226 Appendix D HOTP values', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    expect(expected.map((_, counter) => hotp(SEED.sha1, counter))).toEqual(expected);
  });

  it('accepts a code of the step before or after, and no further', () => {
    const now = 1_700_000_000;
    const step = Math.floor(now / 30);
    expect(matchingStep(SEED.sha1, totp(SEED.sha1, now), now)).toBe(step);
    expect(matchingStep(SEED.sha1, totp(SEED.sha1, now - 30), now)).toBe(step - 1);
    expect(matchingStep(SEED.sha1, totp(SEED.sha1, now + 30), now)).toBe(step + 1);
    expect(matchingStep(SEED.sha1, totp(SEED.sha1, now - 60), now)).toBeUndefined();
    expect(matchingStep(SEED.sha1, 'abcdef', now)).toBeUndefined();
  });

  it('spells the secret in RFC 4648 base32 within an otpauth URI', () => {
    expect(base32(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(otpauthUri(SEED.sha1, 'Acme', 'alice')).toBe('otpauth://totp/Acme:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Acme&algorithm=SHA1&digits=6&period=30');
  });
});
