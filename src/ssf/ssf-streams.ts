import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { ssfStreamKey, type SsfStreamView } from '../../projections/ssf-streams.projection.js';
import { InvalidRequest, NotFound } from '../auth/oauth-errors.js';
import { CommandPath } from '../central/command-path.js';
import { DomainError } from '../domain/shared/domain-error.js';
import { streams } from '../domain/shared/stream-names.js';
import { type SsfStreamCommand, ssfStreamDecider } from '../domain/ssf/ssf-stream.decider.js';
import type { StreamSettings } from '../domain/ssf/ssf-stream.events.js';
import type { RequestOrigin } from '../infrastructure/event-store/event-store.port.js';
import { KeyEncryption } from '../infrastructure/crypto/key-encryption.js';
import { READ_STORE, type ReadStore } from '../infrastructure/read-store/read-store.port.js';
import type { RequestedSettings } from './stream-requests.js';

const VIEWS = ['ssf_streams'];

/** Who acts: the receiver (a client of the tenant) and the request it came with. */
export interface Receiver {
  tenantId: string;
  clientId: string;
  origin: RequestOrigin;
  /** Registered by an administrator with `ssf_push_internal_endpoints`: its push endpoints may be internal. */
  internalEndpoints?: boolean;
}

/** The push Authorization header as the log keeps it: sealed, bound to its tenant and stream. */
const context = (tenantId: string, streamId: string) => `${tenantId}\n${streamId}`;

/** Streams of receivers: their commands on the one command path, and their views, each seen only by its receiver. */
@Injectable()
export class SsfStreams {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(KeyEncryption) private readonly keys: KeyEncryption,
  ) {}

  newStreamId(): string {
    return randomBytes(16).toString('base64url');
  }

  async create(r: Receiver, streamId: string, settings: RequestedSettings): Promise<SsfStreamView> {
    await this.run(r, streamId, { kind: 'CreateStream', tenantId: r.tenantId, streamId, clientId: r.clientId, settings: this.sealed(r.tenantId, streamId, settings) });
    return this.require(r, streamId);
  }

  /** Replaces the settings; a push stream that gives no new Authorization header keeps the one it had. */
  async update(r: Receiver, current: SsfStreamView, settings: RequestedSettings): Promise<SsfStreamView> {
    const next = this.sealed(r.tenantId, current.streamId, settings);
    if (next.delivery.method === current.delivery.method && settings.delivery.authorization === undefined && current.delivery.authorizationSealed) {
      next.delivery.authorizationSealed = current.delivery.authorizationSealed;
    }
    await this.run(r, current.streamId, { kind: 'UpdateStream', clientId: r.clientId, settings: next });
    return this.require(r, current.streamId);
  }

  async command(r: Receiver, streamId: string, command: Exclude<SsfStreamCommand, { kind: 'CreateStream' | 'UpdateStream' }>): Promise<void> {
    await this.run(r, streamId, command);
  }

  /** The receiver's stream, or not_found (another receiver's stream is as unknown as none). */
  async require(r: Receiver, streamId: string): Promise<SsfStreamView> {
    const s = await this.reads.get<SsfStreamView>('ssf_streams', ssfStreamKey(r.tenantId, streamId));
    if (!s || s.clientId !== r.clientId) throw new NotFound('no such stream');
    const { _id, _position, ...view } = s;
    return view as SsfStreamView;
  }

  async ofReceiver(r: Receiver): Promise<SsfStreamView[]> {
    const docs = await this.reads.find<SsfStreamView>('ssf_streams', { tenantId: r.tenantId, clientId: r.clientId }, { sortBy: '_id' });
    return docs.map(({ _id, _position, ...view }) => view as SsfStreamView);
  }

  /** A push stream's Authorization header, opened for the sender. */
  authorizationOf(s: SsfStreamView): string | undefined {
    return s.delivery.authorizationSealed ? this.keys.open('ssf-authorization', s.delivery.authorizationSealed, context(s.tenantId, s.streamId)) : undefined;
  }

  private sealed(tenantId: string, streamId: string, s: RequestedSettings): StreamSettings {
    const { authorization, ...delivery } = s.delivery;
    return { ...s, delivery: { ...delivery, ...(authorization !== undefined ? { authorizationSealed: this.keys.seal('ssf-authorization', authorization, context(tenantId, streamId)) } : {}) } };
  }

  private async run(r: Receiver, streamId: string, command: SsfStreamCommand): Promise<void> {
    try {
      await this.path.run(streams.ssfStream(r.tenantId, streamId), ssfStreamDecider, command, { tenantId: r.tenantId, actor: `client:${r.clientId}`, origin: r.origin }, VIEWS);
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      if (e.code === 'not_found') throw new NotFound(e.message);
      throw new InvalidRequest(e.message);
    }
  }
}
