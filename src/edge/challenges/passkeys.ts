import { Inject, Injectable } from '@nestjs/common';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { randomBytes } from 'node:crypto';
import type { UserView } from '../../../projections/users.projection.js';
import { UsedJtis } from '../../auth/one-time/used-jtis.js';
import type { Passkey } from '../../domain/second-factor/second-factor.decider.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { type FactorOutcome, SecondFactors } from './second-factors.js';

/** Seconds a passkey page's challenge may be answered in (WebAuthn Level 3 §13.4.3: short-lived, used once). */
export const PASSKEY_CHALLENGE_TTL = 300;

/** A WebAuthn challenge a page hands the browser: single use, until `expiresAt` (seconds). */
export interface PasskeyChallenge {
  value: string;
  expiresAt: number;
}

/**
 * RFC 8176 §2: a passkey proves possession of a key (`hwk` when it stays on one authenticator;
 * `swk` when it may be synced to other devices, the backup-eligible flag), beside the password.
 */
const amrOf = (multiDevice: boolean) => ['pwd', multiDevice ? 'swk' : 'hwk', 'mfa'];

/**
 * Passkeys (WebAuthn) as a second factor: the options a page hands the browser, and the check
 * of what the authenticator answered, by `@simplewebauthn/server`. The relying party is the
 * tenant's issuer: its host is the RP ID, its origin the only origin accepted. Each challenge
 * is random, carried in the sealed pending sign-in, and claimed once on the log when answered;
 * credential ids, public keys and counters are kept on the user's second-factor stream. Wrong
 * answers count towards the sign-in limits, as wrong codes do.
 */
@Injectable()
export class Passkeys {
  constructor(
    @Inject(SecondFactors) private readonly factors: SecondFactors,
    @Inject(UsedJtis) private readonly used: UsedJtis,
    @Inject(Directory) private readonly directory: Directory,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** Options for `navigator.credentials.create()`: a new passkey for `user`, none of theirs again. */
  async registrationOptions(tenantId: string, user: UserView): Promise<{ options: PublicKeyCredentialCreationOptionsJSON; challenge: PasskeyChallenge }> {
    const { passkeys } = await this.factors.state(tenantId, user.userId);
    const options = await generateRegistrationOptions({
      rpName: tenantId,
      rpID: this.rp(tenantId).id,
      userName: user.username,
      userID: new TextEncoder().encode(user.userId),
      challenge: new Uint8Array(randomBytes(32)),
      timeout: PASSKEY_CHALLENGE_TTL * 1000,
      attestationType: 'none',
      excludeCredentials: passkeys.map((p) => ({ id: p.credentialId, ...(p.transports ? { transports: p.transports } : {}) })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    return { options, challenge: this.challenge(options.challenge) };
  }

  /** Options for `navigator.credentials.get()`: any of `user`'s passkeys. */
  async authenticationOptions(tenantId: string, user: UserView): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; challenge: PasskeyChallenge }> {
    const { passkeys } = await this.factors.state(tenantId, user.userId);
    const options = await generateAuthenticationOptions({
      rpID: this.rp(tenantId).id,
      challenge: new Uint8Array(randomBytes(32)),
      timeout: PASSKEY_CHALLENGE_TTL * 1000,
      userVerification: 'preferred',
      allowCredentials: passkeys.map((p) => ({ id: p.credentialId, ...(p.transports ? { transports: p.transports } : {}) })),
    });
    return { options, challenge: this.challenge(options.challenge) };
  }

  /** A new passkey's registration (`credential`: the browser's answer as JSON): when it verifies, the passkey is the user's and proves the factor. */
  async register(tenantId: string, user: UserView, challenge: PasskeyChallenge | undefined, credential: string, origin: RequestOrigin): Promise<FactorOutcome> {
    return this.factors.attempt(tenantId, user, origin, async () => {
      if (!(await this.claim(tenantId, user, challenge, origin))) return this.failed(tenantId, user, origin);
      const response = parse<RegistrationResponseJSON>(credential);
      if (!response) return this.failed(tenantId, user, origin);
      const rp = this.rp(tenantId);
      const verified = await verifyRegistrationResponse({ response, expectedChallenge: challenge!.value, expectedOrigin: rp.origin, expectedRPID: rp.id, requireUserVerification: false }).catch(() => undefined);
      if (!verified?.verified) return this.failed(tenantId, user, origin);
      const { credential: c, credentialDeviceType } = verified.registrationInfo;
      const passkey: Passkey = {
        credentialId: c.id,
        publicKey: Buffer.from(c.publicKey).toString('base64url'),
        counter: c.counter,
        ...(c.transports?.length ? { transports: c.transports.slice(0, 8) } : {}),
        multiDevice: credentialDeviceType === 'multiDevice',
      };
      // A user with neither an app nor recovery codes gets codes now, shown once (the decider keeps any they have).
      const state = await this.factors.state(tenantId, user.userId);
      const codes = !state.sealedTotpSecret && state.recoveryCodeHashes.length === 0 ? this.factors.newRecoveryCodes(tenantId, user.userId) : undefined;
      const command = { kind: 'RegisterPasskey' as const, tenantId, userId: user.userId, passkey, ...(codes ? { recoveryCodeHashes: codes.recoveryCodeHashes } : {}) };
      const done = await this.factors.run(tenantId, user.userId, command, origin);
      if (!done) return this.failed(tenantId, user, origin);
      const given = done.some((e) => e.type === 'PasskeyRegistered' && e.data.recoveryCodeHashes !== undefined);
      return { kind: 'proved', amr: amrOf(passkey.multiDevice), ...(given && codes ? { recoveryCodes: codes.recoveryCodes } : {}) };
    });
  }

  /** An assertion (`credential`: the browser's answer as JSON) by one of the user's passkeys, over the pending sign-in's challenge. */
  async verify(tenantId: string, user: UserView, challenge: PasskeyChallenge | undefined, credential: string, origin: RequestOrigin): Promise<FactorOutcome> {
    return this.factors.attempt(tenantId, user, origin, async () => {
      if (!(await this.claim(tenantId, user, challenge, origin))) return this.failed(tenantId, user, origin);
      const response = parse<AuthenticationResponseJSON>(credential);
      if (!response) return this.failed(tenantId, user, origin);
      // Only the user's own credentials: a passkey of another user is no answer here.
      const key = (await this.factors.state(tenantId, user.userId)).passkeys.find((p) => p.credentialId === response.id);
      if (!key) return this.failed(tenantId, user, origin);
      const rp = this.rp(tenantId);
      const verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge!.value,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: { id: key.credentialId, publicKey: new Uint8Array(Buffer.from(key.publicKey, 'base64url')), counter: key.counter, ...(key.transports ? { transports: key.transports } : {}) },
        requireUserVerification: false,
      }).catch(() => undefined);
      if (!verified?.verified) return this.failed(tenantId, user, origin);
      const used = await this.factors.run(tenantId, user.userId, { kind: 'UsePasskey', tenantId, userId: user.userId, credentialId: key.credentialId, counter: verified.authenticationInfo.newCounter }, origin);
      return used ? { kind: 'proved', amr: amrOf(key.multiDevice) } : this.failed(tenantId, user, origin);
    });
  }

  /** The tenant as a WebAuthn relying party: the issuer's host (RP ID) and origin. */
  private rp(tenantId: string): { id: string; origin: string } {
    const issuer = new URL(this.directory.issuer(tenantId));
    return { id: issuer.hostname, origin: issuer.origin };
  }

  private challenge(value: string): PasskeyChallenge {
    return { value, expiresAt: this.clock.seconds() + PASSKEY_CHALLENGE_TTL };
  }

  /** The challenge is still fresh and was never answered before; it is spent now, whatever the answer. */
  private async claim(tenantId: string, user: UserView, challenge: PasskeyChallenge | undefined, origin: RequestOrigin): Promise<boolean> {
    if (!challenge || this.clock.seconds() >= challenge.expiresAt) return false;
    const actor = `user:${user.userId}`;
    return this.used.use({ tenantId, kind: 'webauthn_challenge', issuer: user.userId, jti: challenge.value, expiresAt: challenge.expiresAt, actor, origin });
  }

  private async failed(tenantId: string, user: UserView, origin: RequestOrigin): Promise<undefined> {
    await this.factors.run(tenantId, user.userId, { kind: 'RecordFailure', tenantId, userId: user.userId, factor: 'webauthn' }, origin);
    return undefined;
  }
}

/** The browser's answer, or undefined when it is no JSON object with an id and a response. */
function parse<T extends { id: string; response: object }>(json: string): T | undefined {
  if (json.length > 64 * 1024) return undefined;
  try {
    const value = JSON.parse(json) as T;
    return typeof value === 'object' && value !== null && typeof value.id === 'string' && typeof value.response === 'object' && value.response !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
