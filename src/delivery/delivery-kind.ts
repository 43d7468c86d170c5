import { Injectable } from '@nestjs/common';
import type { KeyObject } from 'node:crypto';
import type { SigningAlg } from '../domain/tenant/tenant.events.js';
import type { RecordedEvent } from '../infrastructure/event-store/event-store.port.js';
import type { Delivery } from './delivery-store.js';
import type { Answer } from './receiver-pools.js';

/** The HTTP request of one attempt, made anew at each attempt (a token signed now, a signature over this attempt's timestamp). */
export interface RenderedRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Connect only to a public address (a receiver that may not name an internal one); absent, any. */
  publicOnly?: boolean;
}

/**
 * A request whose body is a JWT that the delivery thread signs at the attempt (no signature on
 * the request thread): the body is the token itself, or with `form` a form-encoded body of that
 * one field. Only the private key object crosses to the thread, never a sealed key.
 */
export interface UnsignedRequest {
  url: string;
  headers: Record<string, string>;
  jwt: { header: Record<string, unknown> & { alg: SigningAlg }; payload: Record<string, unknown>; key: KeyObject };
  form?: string;
}

/** The three outcome event types of a kind. */
export interface OutcomeTypes {
  delivered: string;
  failed: string;
  deadLettered: string;
}

/** The outcome event types of a kind other than back-channel logout: `<Prefix>Delivered`, `<Prefix>DeliveryFailed`, `<Prefix>DeliveryDeadLettered`. */
export function outcomeTypes(prefix: string): OutcomeTypes {
  return { delivered: `${prefix}Delivered`, failed: `${prefix}DeliveryFailed`, deadLettered: `${prefix}DeliveryDeadLettered` };
}

export type Outcome = 'delivered' | 'failed' | 'dead';

/** Whether a delivery is attempted now: `send`; `hold`: stored as held until its kind releases it; `drop`: its receiver is gone, it is removed. */
export type Gate = 'send' | 'hold' | 'drop';

/**
 * What one kind of message (`backchannel_logout`, `webhook`, `ssf_push`, ...) adds to the
 * shared delivery machinery: the request of each attempt, the events its outcomes are recorded
 * as, and how the admin API shows it. Retries, backoff, per-receiver concurrency and dead
 * letters are the sender's, the same for every kind.
 */
export interface DeliveryKind<D extends object = object> {
  /** The `kind` of its deliveries; never changes once deliveries were stored. */
  readonly kind: string;
  /** The request of one attempt; throwing fails the attempt like a refused POST (its message is the error). */
  render(d: Delivery<D>): Promise<RenderedRequest | UnsignedRequest>;
  readonly outcomeTypes: OutcomeTypes;
  /** The stream an outcome event is appended to. */
  outcomeStream(d: Delivery<D>): string;
  /** The kind's fields in each outcome event, after `tenantId` and `deliveryId` (never a secret). */
  outcomeFields(d: Delivery<D>): Record<string, unknown>;
  /** The kind's fields in the admin API's representation of a delivery (wire names). */
  represent(d: Delivery<D>): Record<string, unknown>;
  /**
   * Whether a failed attempt's answer refuses this very message for good (absent: never): the
   * error to record, and it is dead-lettered at once instead of retried; undefined: retried.
   * When `render` threw, the answer has no status and `render`'s message as its error.
   */
  refusal?(answer: Answer): string | undefined;
  /** Asked before each attempt (absent: always `send`), e.g. so that a paused receiver is sent nothing. */
  gate?(d: Delivery<D>): Promise<Gate>;
  /** Called once an outcome is recorded (durably; `position` of its event in the log), e.g. to pause a receiver that keeps failing. Errors are logged, not retried. */
  afterOutcome?(d: Delivery<D>, outcome: Outcome, position: number): Promise<void>;
}

/**
 * Which log events make deliveries of one kind. A follower reads the log from its own
 * checkpoint; the deliveries of a batch and the checkpoint after it are stored in one step.
 */
export interface DeliveryFollowerSpec {
  /** The name of the follower's checkpoint (a view of no documents); never changes once used. */
  readonly checkpoint: string;
  /** The log event types it reads. */
  readonly eventTypes: readonly string[];
  /** Views that must have passed a batch's last event before `deliveriesOf` reads them. */
  readonly views: readonly string[];
  /** The deliveries the events make; the same ids whenever the events are read again. */
  deliveriesOf(batch: readonly RecordedEvent[], now: Date): Promise<Delivery[]>;
}

/** The kinds and followers known to the delivery machinery; each kind's provider registers itself when its module initialises. */
@Injectable()
export class DeliveryKinds {
  private readonly kinds = new Map<string, DeliveryKind>();
  private readonly specs: DeliveryFollowerSpec[] = [];

  register<D extends object>(kind: DeliveryKind<D>, follower?: DeliveryFollowerSpec): void {
    if (this.kinds.has(kind.kind)) throw new Error(`delivery kind ${kind.kind} registered twice`);
    this.kinds.set(kind.kind, kind as unknown as DeliveryKind);
    if (follower) this.specs.push(follower);
  }

  get(kind: string): DeliveryKind | undefined {
    return this.kinds.get(kind);
  }

  /** The registered kinds' names, in the order they were registered. */
  get names(): string[] {
    return [...this.kinds.keys()];
  }

  get followers(): readonly DeliveryFollowerSpec[] {
    return this.specs;
  }
}
