import { clientCreatedV1ToV2 } from '../../domain/client/client.upcasters.js';
import { systemSettingsV1ToV2, tenantSettingsV1ToV2 } from '../../domain/tenant/tenant.upcasters.js';
import type { RecordedEvent } from './event-store.port.js';

/** Turns the data of an event written at one schema version into the next version's. */
type Upcaster = (data: Record<string, unknown>) => unknown;

/**
 * Event types whose data was reshaped: the version written now, and for each older version the
 * step to the one after it. Types not named here are at version 1. A type is never reshaped in
 * place (rule 2): a new version gets an entry here, and readers only ever see the newest shape.
 */
const UPCASTERS: Record<string, { current: number; from: Record<number, Upcaster> }> = {
  ClientCreated: { current: 2, from: { 1: clientCreatedV1ToV2 } },
  // Security profiles: `strict` became `fapi2-security`.
  TenantCreated: { current: 2, from: { 1: tenantSettingsV1ToV2 } },
  TenantSettingsChanged: { current: 2, from: { 1: tenantSettingsV1ToV2 } },
  SystemSettingsChanged: { current: 2, from: { 1: systemSettingsV1ToV2 } },
};

/** The schema version events of this type are written at. */
export function schemaVersionOf(type: string): number {
  return Object.hasOwn(UPCASTERS, type) ? UPCASTERS[type].current : 1;
}

/**
 * The event in the newest shape of its type: the same object when it is already (the common
 * case costs one lookup), else a copy with upcast data and the current schema version. A
 * version newer than this build knows is returned as it is.
 */
export function upcast<E extends RecordedEvent>(event: E): E {
  if (!Object.hasOwn(UPCASTERS, event.type)) return event;
  const { current, from } = UPCASTERS[event.type];
  let version = event.metadata.schemaVersion ?? 1;
  if (version >= current) return event;
  let data = event.data as Record<string, unknown>;
  for (; version < current; version++) data = from[version](data) as Record<string, unknown>;
  return { ...event, data, metadata: { ...event.metadata, schemaVersion: current } };
}
