import { randomToken, sha256 } from '../../infrastructure/crypto/hashing.js';
import { artefactHash, mintArtefact, newSessionId, sessionOf } from './session-commands.js';

describe('session artefacts', () => {
  const sessionId = newSessionId();

  it('carry their session and are kept by stamp and SHA-256', () => {
    const a = mintArtefact(sessionId, 0x0123456789ab);
    expect(a.value).toMatch(new RegExp(`^${sessionId}\\.0123456789ab[A-Za-z0-9_-]{43}$`));
    expect(sessionOf(a.value)).toBe(sessionId);
    expect(a.hash).toBe(`0123456789ab.${sha256(a.value)}`);
    expect(artefactHash(a.value)).toBe(a.hash);
  });

  it('are referenced in issue order', () => {
    const refs = [1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000].map((t) => mintArtefact(sessionId, t).hash);
    expect([...refs].sort()).toEqual(refs);
  });

  it('from before stamps are still recognised and kept by their SHA-256', () => {
    const old = `${sessionId}.${randomToken()}`;
    expect(sessionOf(old)).toBe(sessionId);
    expect(artefactHash(old)).toBe(sha256(old));
  });

  it('with a changed stamp are another artefact', () => {
    const a = mintArtefact(sessionId, 0x0123456789ab);
    const forged = a.value.replace('0123456789ab', '0123456789ac');
    expect(artefactHash(forged)).not.toBe(a.hash);
    expect(artefactHash(forged).endsWith(a.hash.slice(13))).toBe(false);
  });

  it('of another shape belong to no session', () => {
    expect(sessionOf('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).toBeUndefined();
    expect(sessionOf(`${sessionId}.short`)).toBeUndefined();
  });
});
