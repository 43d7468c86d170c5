import { isoCBOR } from '@simplewebauthn/server/helpers';
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

/** What a page hands the browser (the JSON forms of WebAuthn's options), as far as an authenticator reads it. */
export interface PasskeyOptions {
  challenge: string;
  rp?: { id?: string };
  rpId?: string;
}

/** A credential as the browser would post it (WebAuthn Level 3 §5.1's JSON forms, binary fields base64url). */
export interface CredentialJson {
  id: string;
  rawId: string;
  type: 'public-key';
  response: Record<string, unknown>;
  clientExtensionResults: Record<string, never>;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest();
const b64u = (data: string | Uint8Array) => Buffer.from(data).toString('base64url');

/** WebAuthn §6.1 flags: user present, user verified, attested credential data included. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

/**
 * A WebAuthn authenticator in the test process, for the HTTP-level tests: ES256 keys made by
 * node:crypto, `none` attestation, authenticator data laid out as WebAuthn §6.1 says, and
 * assertions signed over authenticatorData ‖ SHA-256(clientDataJSON) (§6.3.3). The browser test
 * uses Chromium's own virtual authenticator instead.
 */
export class SoftAuthenticator {
  private readonly keys = new Map<string, { privateKey: KeyObject; counter: number }>();

  /** `origin`: what the "browser" puts in clientDataJSON; `counts`: whether the signature counter grows (0 for ever when not). */
  constructor(
    readonly origin: string,
    private readonly counts = true,
  ) {}

  /** navigator.credentials.create() for the options a registration page carries. */
  create(options: PasskeyOptions): CredentialJson {
    const rpId = options.rp?.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    // RFC 9053 §7.1.1: an EC2 key (kty 2) for ES256 (alg -7) on P-256 (crv 1), with x and y.
    const cose = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
    ]);
    const credentialId = randomBytes(16);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(credentialId.length);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([UP | UV | AT]), counter(0), Buffer.alloc(16), length, credentialId, Buffer.from(isoCBOR.encode(cose))]);
    const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', new Uint8Array(authData)]]) as never);
    const id = b64u(credentialId);
    this.keys.set(id, { privateKey, counter: 0 });
    const clientData = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: this.origin, crossOrigin: false });
    return { id, rawId: id, type: 'public-key', response: { clientDataJSON: b64u(clientData), attestationObject: b64u(attestationObject), transports: ['internal'] }, clientExtensionResults: {} };
  }

  /**
   * navigator.credentials.get() with credential `id` for the options a sign-in page carries;
   * `counter` forces the counter reported (a cloned authenticator's, say).
   */
  get(options: PasskeyOptions, id: string = this.credentialIds()[0], o: { counter?: number; origin?: string } = {}): CredentialJson {
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    const key = this.keys.get(id);
    if (!key) throw new Error(`no credential ${id} in this authenticator`);
    if (this.counts) key.counter++;
    const authData = Buffer.concat([sha256(rpId), Buffer.from([UP | UV]), counter(o.counter ?? key.counter)]);
    const clientData = JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: o.origin ?? this.origin, crossOrigin: false });
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), key.privateKey);
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: { clientDataJSON: b64u(clientData), authenticatorData: b64u(authData), signature: b64u(signature) },
      clientExtensionResults: {},
    };
  }

  credentialIds(): string[] {
    return [...this.keys.keys()];
  }
}

function counter(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}
