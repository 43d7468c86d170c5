// @peculiar/x509 resolves its algorithms through tsyringe, which needs the metadata polyfill loaded first.
import 'reflect-metadata';
import { Inject, Injectable } from '@nestjs/common';
import * as x509 from '@peculiar/x509';
import { createHash, createPublicKey, randomBytes, webcrypto } from 'node:crypto';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
import { edgeCaDecider } from '../../domain/edge-instance/edge-ca.decider.js';
import type { EdgeCaCreated } from '../../domain/edge-instance/edge-ca.events.js';
import type { EdgeCertificateFacts } from '../../domain/edge-instance/edge-instance.events.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { streams } from '../../domain/shared/stream-names.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { CommandPath, type CommandOrigin } from '../command-path.js';

// Certificates are built and signed through WebCrypto, which in Node is OpenSSL.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const CA_SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const CA_KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;
/** The CA outlives every certificate it signs by far; it is not rotated (docs/edges.md). */
const CA_LIFETIME_MS = 10 * 365 * 86_400_000;
const MAX_CSR_LENGTH = 16_384;

interface OpenCa {
  certificate: x509.X509Certificate;
  pem: string;
  key: CryptoKey;
}

/** An issued certificate: the chain the edge installs, and what the log keeps of it. */
export interface IssuedCertificate {
  chainPem: string;
  facts: EdgeCertificateFacts;
}

/** A positive 127-bit serial number (RFC 5280 §4.1.2.2: at most 20 octets, positive), in hexadecimal. */
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x40;
  return bytes.toString('hex');
}

/** X.509 times count whole seconds: the facts logged are the times the certificate states. */
const wholeSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000);

/**
 * The tenant's internal CA of edge client certificates: made at the first certificate the
 * tenant issues (an ECDSA P-256 key, self-signed for ten years), its key sealed in the log
 * under the key-encryption key (purpose `edge-ca`, bound to the tenant) and opened once per
 * process. Per tenant, not per deployment: a certificate of one tenant's edge is never one that
 * another tenant's CA vouches for (rule 6), and a tenant's CA goes with the tenant.
 */
@Injectable()
export class EdgeCa {
  private readonly open = new Map<string, Promise<OpenCa>>();

  constructor(
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(KeyEncryption) private readonly keys: KeyEncryption,
  ) {}

  /** The CA's certificate in PEM, or undefined while the tenant has none. */
  async certificatePem(tenantId: string): Promise<string | undefined> {
    return (await this.aggregates.load(streams.edgeCa(tenantId), edgeCaDecider)).state.ca?.certificatePem;
  }

  /**
   * A certificate for `edgeId` from its CSR (PKCS#10, RFC 2986): the CSR's signature must
   * verify with its own key (the edge holds the private half, which never leaves it); its
   * subject and extensions are not used: the subject is `CN=<edge id>, O=<tenant>`, the one
   * subject alternative name the edge's URL in the admin API, for TLS client authentication only.
   */
  async issue(by: CommandOrigin, edgeId: string, edgeUrl: string, csrPem: string, now: Date, ttlSeconds: number): Promise<IssuedCertificate> {
    const publicKey = await this.csrKey(csrPem);
    const ca = await this.ca(by, now);
    const notBefore = wholeSeconds(now.getTime());
    const notAfter = wholeSeconds(now.getTime() + ttlSeconds * 1000);
    const serial = randomSerial();
    const certificate = await x509.X509CertificateGenerator.create({
      serialNumber: serial,
      subject: [{ CN: [edgeId] }, { O: [by.tenantId] }],
      issuer: ca.certificate.subjectName.toJSON(),
      notBefore,
      notAfter,
      publicKey,
      signingKey: ca.key,
      signingAlgorithm: CA_SIGNING,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth], false),
        new x509.SubjectAlternativeNameExtension([{ type: 'url', value: edgeUrl }], false),
        await x509.AuthorityKeyIdentifierExtension.create(ca.certificate.publicKey),
        await x509.SubjectKeyIdentifierExtension.create(publicKey),
      ],
    });
    const thumbprint = createHash('sha256').update(Buffer.from(certificate.rawData)).digest('base64url');
    return {
      chainPem: `${certificate.toString('pem')}\n${ca.pem}\n`,
      facts: { serial, thumbprint, notBefore: notBefore.toISOString(), notAfter: notAfter.toISOString() },
    };
  }

  /** The CSR's public key, once its self-signature verifies and the key is one a TLS stack takes. */
  private async csrKey(pem: string): Promise<x509.PublicKey> {
    const bad = (m: string): never => {
      throw new DomainError('invalid_value', `csr: ${m}`);
    };
    if (pem.length > MAX_CSR_LENGTH || !pem.includes('-----BEGIN CERTIFICATE REQUEST-----')) bad('must be a PEM certificate signing request (PKCS#10, "BEGIN CERTIFICATE REQUEST")');
    let csr: x509.Pkcs10CertificateRequest;
    try {
      csr = new x509.Pkcs10CertificateRequest(pem);
    } catch {
      return bad('is not a readable PKCS#10 certificate signing request');
    }
    let details: { type?: string; bits?: number; curve?: string };
    try {
      const key = createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: 'der', type: 'spki' });
      details = { type: key.asymmetricKeyType, bits: key.asymmetricKeyDetails?.modulusLength, curve: key.asymmetricKeyDetails?.namedCurve };
    } catch {
      return bad('has a public key that cannot be read');
    }
    const acceptable = (details.type === 'ec' && (details.curve === 'prime256v1' || details.curve === 'secp384r1')) || (details.type === 'rsa' && (details.bits ?? 0) >= 2048) || details.type === 'ed25519';
    if (!acceptable) bad('the key must be EC P-256 or P-384, RSA of 2048 bits or more, or Ed25519');
    // RFC 2986 §3: the request is signed with the key it asks a certificate for (proof of possession).
    const verified = await csr.verify().catch(() => false);
    if (!verified) bad('its signature does not verify with its own public key');
    return csr.publicKey;
  }

  private ca(by: CommandOrigin, now: Date): Promise<OpenCa> {
    let ca = this.open.get(by.tenantId);
    if (!ca) {
      ca = this.loadOrCreate(by, now);
      this.open.set(by.tenantId, ca);
      ca.catch(() => this.open.delete(by.tenantId));
    }
    return ca;
  }

  private async loadOrCreate(by: CommandOrigin, now: Date): Promise<OpenCa> {
    const stream = streams.edgeCa(by.tenantId);
    let { ca } = (await this.aggregates.load(stream, edgeCaDecider)).state;
    if (!ca) {
      const created = await this.create(by.tenantId, now);
      // A CA created at the same time by another process wins if it was first; this one is dropped.
      const outcome = await this.path.run(stream, edgeCaDecider, { kind: 'CreateCa', ca: created }, { tenantId: by.tenantId, actor: by.actor, ...(by.origin ? { origin: by.origin } : {}) }, []);
      ca = outcome.state.ca!;
    }
    const pkcs8 = Buffer.from(this.keys.open('edge-ca', ca.encryptedPrivateKey, by.tenantId), 'base64');
    const key = await webcrypto.subtle.importKey('pkcs8', pkcs8, CA_KEY, false, ['sign']);
    return { certificate: new x509.X509Certificate(ca.certificatePem), pem: ca.certificatePem, key: key as CryptoKey };
  }

  private async create(tenantId: string, now: Date): Promise<EdgeCaCreated['data']> {
    const keys = (await webcrypto.subtle.generateKey(CA_KEY, true, ['sign', 'verify'])) as CryptoKeyPair;
    const serial = randomSerial();
    const notAfter = wholeSeconds(now.getTime() + CA_LIFETIME_MS);
    const certificate = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial,
      name: [{ CN: [`edge CA of ${tenantId}`] }, { O: [tenantId] }],
      notBefore: wholeSeconds(now.getTime()),
      notAfter,
      keys,
      signingAlgorithm: CA_SIGNING,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
    return { tenantId, certificatePem: certificate.toString('pem'), encryptedPrivateKey: this.keys.seal('edge-ca', pkcs8, tenantId), serial, notAfter: notAfter.toISOString() };
  }
}
