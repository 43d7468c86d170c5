import type { FastifyReply } from 'fastify';
import type { ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import type { Directory } from '../../shared/directory.js';
import { sendEtag } from './etag.js';
import { stringFilter } from './item-origin.js';
import { mergePatch } from './merge-patch.js';
import { pageOf, pageQuery } from './paging.js';
import { problems } from './problem.js';
import { validated } from './validation.js';

/** One kind of a tenant's admin items: its view, its path under `{issuer}/configuration/`, and how an item is keyed and shown. */
export interface ItemKind<V extends { revision: number }> {
  view: string;
  path: string;
  noun: string;
  key: (tenantId: string, id: string) => string;
  idOf: (item: V) => string;
  render: (item: V) => Record<string, unknown>;
  /** Fields of the representation that the server sets (besides the times): not part of what a patch edits. */
  readOnly?: readonly string[];
}

/** A list's equality filter: the query parameter, and the view field it matches (the same name by default). */
export interface ItemFilter {
  name: string;
  maxLength: number;
  field?: string;
}

/**
 * The reads and answers every item route of a kind shares: pages in the order of ids (a range
 * of the view's keys), one item or 404, the answers carrying its ETag, and a merge patch of its
 * representation validated as a create is, with the fields that never change checked.
 */
export class TenantItems<V extends { revision: number }> {
  constructor(
    private readonly reads: ReadStore,
    private readonly directory: Directory,
    private readonly kind: ItemKind<V>,
  ) {}

  async page(tenantId: string, query: unknown, filter?: ItemFilter): Promise<unknown> {
    const { limit, after } = pageQuery(query, filter ? [filter.name] : []);
    const value = filter && stringFilter(query, filter.name, filter.maxLength, (d) => problems.badRequest(d, [{ path: filter.name, detail: d }]));
    const prefix = this.kind.key(tenantId, '');
    const equal: Record<string, string> = value !== undefined ? { tenantId, [filter!.field ?? filter!.name]: value } : {};
    const docs = await this.reads.find<V>(this.kind.view, equal, { idPrefix: prefix, ...(after !== undefined ? { afterId: prefix + after } : {}), sortBy: '_id', limit: limit + 1 });
    return pageOf(docs, limit, this.kind.idOf, this.kind.render);
  }

  async found(tenantId: string, id: string): Promise<V> {
    const item = await this.reads.get<V>(this.kind.view, this.kind.key(tenantId, id));
    if (!item) throw problems.notFound(`no ${this.kind.noun} ${id}`);
    return item;
  }

  /** The item with its ETag. */
  async shown(reply: FastifyReply, tenantId: string, id: string): Promise<Record<string, unknown>> {
    const item = await this.found(tenantId, id);
    sendEtag(reply, item.revision);
    return this.kind.render(item);
  }

  /** The answer to a create: 201, the item's URL and ETag, and the item. */
  async created(reply: FastifyReply, tenantId: string, id: string): Promise<Record<string, unknown>> {
    const shown = await this.shown(reply, tenantId, id);
    reply.status(201).header('location', `${this.directory.issuer(tenantId)}/configuration/${this.kind.path}/${encodeURIComponent(id)}`);
    return shown;
  }

  /** RFC 7396: `body` merged into the item's representation (its times left out), validated as `dto`; each of `fixed` must keep its value. */
  patched<D extends object>(item: V, body: unknown, dto: new () => D, fixed: Partial<Record<keyof D & string, unknown>>): D {
    const { created_at: _c, updated_at: _u, ...editable } = this.kind.render(item);
    for (const f of this.kind.readOnly ?? []) delete editable[f];
    const patched = validated(dto, mergePatch(editable, body));
    for (const [field, was] of Object.entries(fixed)) {
      if ((patched as Record<string, unknown>)[field] !== was) throw problems.badRequest(`${field} cannot change`, [{ path: field, detail: 'cannot change' }]);
    }
    return patched;
  }
}
