import { Controller, Delete, Get, Inject, Param, Patch, Post, Put, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InvalidRequest } from '../auth/oauth-errors.js';
import { Directory } from '../shared/directory.js';
import { originOf } from '../shared/request-origin.js';
import { SsfAccess } from './ssf-access.js';
import { type Receiver, SsfStreams } from './ssf-streams.js';
import { objectBody, patchedSettings, renderStream, statusUpdate, streamIdOf, subjectRequest, verificationRequest, wholeSettings } from './stream-requests.js';

/** The query of a GET or DELETE: `stream_id` alone, or (GET) nothing. */
function streamQuery(req: FastifyRequest, required: boolean): string | undefined {
  const { stream_id, ...rest } = (req.query ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new InvalidRequest(`unknown query parameter ${unknown}`);
  if (stream_id === undefined && !required) return undefined;
  return streamIdOf(stream_id);
}

/**
 * SSF 1.0 §8.1: a receiver manages its own streams. Each answer is `no-store` (a stream's
 * configuration is the receiver's business).
 */
@Controller(':tenant/ssf')
export class StreamsController {
  constructor(
    @Inject(SsfAccess) private readonly access: SsfAccess,
    @Inject(SsfStreams) private readonly streams: SsfStreams,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  private async receiver(tenantId: string, req: FastifyRequest): Promise<Receiver> {
    const clientId = await this.access.receiver(req, tenantId);
    const client = await this.directory.client(tenantId, clientId);
    return { tenantId, clientId, origin: originOf(req), internalEndpoints: client?.ssfPushInternalEndpoints === true };
  }

  private issuer(tenantId: string) {
    return this.directory.issuer(tenantId);
  }

  private poll(tenantId: string, streamId: string) {
    return `${this.issuer(tenantId)}/ssf/poll/${streamId}`;
  }

  private send(reply: FastifyReply, status: number, body?: unknown): void {
    reply.status(status).header('cache-control', 'no-store');
    if (body === undefined) reply.send();
    else reply.header('content-type', 'application/json; charset=utf-8').send(body);
  }

  /** §8.1.1.1: creates a stream; 201 with its configuration. */
  @Post('stream')
  async create(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const r = await this.receiver(tenantId, req);
    const streamId = this.streams.newStreamId();
    const settings = wholeSettings(objectBody(req.body), { iss: this.issuer(tenantId), aud: r.clientId }, undefined, r.internalEndpoints === true);
    const s = await this.streams.create(r, streamId, settings);
    this.send(reply, 201, renderStream(s, this.issuer(tenantId), this.poll(tenantId, streamId)));
  }

  /** §8.1.1.2: one stream, or every stream of the receiver. */
  @Get('stream')
  async read(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const r = await this.receiver(tenantId, req);
    const streamId = streamQuery(req, false);
    if (streamId !== undefined) return this.send(reply, 200, renderStream(await this.streams.require(r, streamId), this.issuer(tenantId), this.poll(tenantId, streamId)));
    const all = await this.streams.ofReceiver(r);
    this.send(reply, 200, all.map((s) => renderStream(s, this.issuer(tenantId), this.poll(tenantId, s.streamId))));
  }

  /** §8.1.1.3: the members given change, the others stay. */
  @Patch('stream')
  async update(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const r = await this.receiver(tenantId, req);
    const body = objectBody(req.body);
    const current = await this.streams.require(r, streamIdOf(body.stream_id));
    const poll = this.poll(tenantId, current.streamId);
    const s = await this.streams.update(r, current, patchedSettings(body, { iss: this.issuer(tenantId), aud: r.clientId, streamId: current.streamId }, current, poll, r.internalEndpoints === true));
    this.send(reply, 200, renderStream(s, this.issuer(tenantId), poll));
  }

  /** §8.1.1.4: the whole receiver-supplied configuration replaced. */
  @Put('stream')
  async replace(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const r = await this.receiver(tenantId, req);
    const body = objectBody(req.body);
    const current = await this.streams.require(r, streamIdOf(body.stream_id));
    const poll = this.poll(tenantId, current.streamId);
    const s = await this.streams.update(r, current, wholeSettings(body, { iss: this.issuer(tenantId), aud: r.clientId, streamId: current.streamId }, poll, r.internalEndpoints === true));
    this.send(reply, 200, renderStream(s, this.issuer(tenantId), poll));
  }

  /** §8.1.1.5: the stream and the SETs it still held are gone. */
  @Delete('stream')
  async remove(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const r = await this.receiver(tenantId, req);
    await this.streams.command(r, streamQuery(req, true)!, { kind: 'DeleteStream', clientId: r.clientId });
    this.send(reply, 204);
  }

  /** §8.1.2.1. */
  @Get('status')
  async status(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const r = await this.receiver(tenantId, req);
    const s = await this.streams.require(r, streamQuery(req, true)!);
    this.send(reply, 200, { stream_id: s.streamId, status: s.status, ...(s.reason !== undefined ? { reason: s.reason } : {}) });
  }

  /** §8.1.2.2: paused holds the stream's SETs until it is enabled again; disabled drops them. */
  @Post('status')
  async setStatus(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const r = await this.receiver(tenantId, req);
    const u = statusUpdate(objectBody(req.body));
    await this.streams.command(r, u.streamId, { kind: 'SetStatus', clientId: r.clientId, status: u.status, ...(u.reason !== undefined ? { reason: u.reason } : {}) });
    const s = await this.streams.require(r, u.streamId);
    this.send(reply, 200, { stream_id: s.streamId, status: s.status, ...(s.reason !== undefined ? { reason: s.reason } : {}) });
  }

  /** §8.1.3.2: 200 with an empty body. */
  @Post('subjects/add')
  async addSubject(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const r = await this.receiver(tenantId, req);
    const { streamId, subject } = subjectRequest(objectBody(req.body), this.issuer(tenantId), true);
    await this.streams.command(r, streamId, { kind: 'AddSubject', clientId: r.clientId, subject });
    this.send(reply, 200);
  }

  /** §8.1.3.3: 204. */
  @Post('subjects/remove')
  async removeSubject(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const r = await this.receiver(tenantId, req);
    const { streamId, subject } = subjectRequest(objectBody(req.body), this.issuer(tenantId), false);
    await this.streams.command(r, streamId, { kind: 'RemoveSubject', clientId: r.clientId, subject });
    this.send(reply, 204);
  }

  /** §8.1.4.2: 204; the verification event follows on the stream. */
  @Post('verify')
  async verify(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const r = await this.receiver(tenantId, req);
    const v = verificationRequest(objectBody(req.body));
    await this.streams.command(r, v.streamId, { kind: 'RequestVerification', clientId: r.clientId, ...(v.state !== undefined ? { state: v.state } : {}) });
    this.send(reply, 204);
  }
}
