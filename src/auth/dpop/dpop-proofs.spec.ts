import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import type { FastifyRequest } from 'fastify';
import { SignJWT } from 'jose';
import type { Config } from '../../config.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import type { UsedJtis } from '../one-time/used-jtis.js';
import { DpopProofs } from './dpop-proofs.js';

const NOW = 1_800_000_000;

class FixedClock extends Clock {
  now(): Date {
    return new Date(NOW * 1000);
  }
}

const keyPair = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const publicJwk = (pair: ReturnType<typeof keyPair>) => pair.publicKey.export({ format: 'jwk' });

async function proof(pair: ReturnType<typeof keyPair>, jwk: Record<string, unknown> = publicJwk(pair)): Promise<string> {
  return new SignJWT({ htm: 'POST', htu: 'https://as.example/acme/token', jti: randomUUID(), iat: NOW })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
    .sign(pair.privateKey);
}

const request = (dpop: string) => ({ headers: { dpop }, raw: { rawHeaders: ['DPoP', dpop] }, method: 'POST', url: '/acme/token' }) as unknown as FastifyRequest;

describe('DPoP proofs at the token endpoint', () => {
  const used = new Set<string>();
  const jtis = { use: async (u: { issuer: string; jti: string }) => !used.has(`${u.issuer} ${u.jti}`) && !!used.add(`${u.issuer} ${u.jti}`) } as unknown as UsedJtis;
  const proofs = new DpopProofs({ publicUrl: 'https://as.example' } as Config, new FixedClock(), jtis, KeyEncryption.load(Buffer.alloc(32, 1).toString('base64'), '.'));
  const context = { tenantId: 'acme', at: 'token' as const, nonceRequired: false, origin: { correlationId: 'test' } };

  it("imports a proof's key once, not with every proof it signs", async () => {
    const pair = keyPair();
    const [one, two] = [await proof(pair), await proof(pair)];
    const imports = jest.spyOn(globalThis.crypto.subtle, 'importKey');
    try {
      const first = await proofs.check(request(one), context);
      const second = await proofs.check(request(two), context);
      expect(second).toEqual(first);
      expect(imports).toHaveBeenCalledTimes(1);
    } finally {
      imports.mockRestore();
    }
  });

  it('checks every proof against its own key: one signed by another key than its jwk fails, with that jwk known or not', async () => {
    const pair = keyPair();
    await proofs.check(request(await proof(pair)), context);
    const forged = await proof(keyPair(), publicJwk(pair));
    await expect(proofs.check(request(forged), context)).rejects.toThrow('the DPoP proof is invalid');
    await expect(proofs.check(request(await proof(keyPair(), publicJwk(keyPair()))), context)).rejects.toThrow('the DPoP proof is invalid');
  });
});
