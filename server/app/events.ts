/**
 * Live events for paired devices and the desktop (SPEC §9 "Live events"): every event has an id
 * for resume, a ring buffer serves reconnects, and each subscriber sees only what its profile
 * may (the desktop everything; a phone approvals, decisions and HALT). Payloads are built
 * redacted by whoever publishes.
 */
export type Audience = 'all' | 'desktop';

export interface GateEvent {
  readonly id: number;
  readonly type: string;
  readonly audience: Audience;
  readonly data: Readonly<Record<string, unknown>>;
  /** `data` as JSON, made once for every stream that sends it. */
  readonly json: string;
}

type Listener = (event: GateEvent) => void;

const KEEP = 500;
/** Deliveries per turn of the event loop: a HALT's own answer never waits behind a thousand streams. */
const BATCH = 16;

export class EventHub {
  private next = 1;
  private readonly recent: GateEvent[] = [];
  private readonly listeners = new Set<Listener>();
  private readonly inside = new Set<Listener>();
  /** Deliveries not made yet, in publish order; each event goes to the listeners it was published to. */
  private readonly outbox: { readonly event: GateEvent; readonly to: readonly Listener[]; at: number }[] = [];
  private draining = false;

  /** Records the event at once (ids, replay); delivery to the listeners follows in bounded turns. */
  publish(type: string, data: Readonly<Record<string, unknown>>, audience: Audience = 'all'): void {
    const event: GateEvent = { id: this.next++, type, audience, data, json: JSON.stringify(data) };
    this.recent.push(event);
    if (this.recent.length > KEEP) this.recent.shift();
    if (this.listeners.size === 0) return;
    this.outbox.push({ event, to: [...this.listeners], at: 0 });
    if (!this.draining) {
      this.draining = true;
      setImmediate(() => {
        this.drain();
      });
    }
  }

  /**
   * Events after `lastId` still in the buffer, then live ones; returns the unsubscribe. `inside`:
   * a listener of the gate's own (the push notifier), not a stream, so not counted as a subscriber.
   */
  subscribe(lastId: number | undefined, listener: Listener, inside = false): { replay: readonly GateEvent[]; close: () => void } {
    this.listeners.add(listener);
    if (inside) this.inside.add(listener);
    return {
      replay: lastId === undefined ? [] : this.recent.filter((e) => e.id > lastId),
      close: () => {
        this.listeners.delete(listener);
        this.inside.delete(listener);
      },
    };
  }

  /** Open streams (devices and the desktop). */
  get subscribers(): number {
    return this.listeners.size - this.inside.size;
  }

  private drain(): void {
    let budget = BATCH;
    while (budget > 0) {
      const head = this.outbox[0];
      if (head === undefined) break;
      const listener = head.to[head.at++];
      if (listener === undefined) {
        this.outbox.shift();
        continue;
      }
      // A stream that closed since the publish is skipped; per stream, order is publish order.
      if (this.listeners.has(listener)) listener(head.event);
      budget -= 1;
    }
    if (this.outbox.length === 0) {
      this.draining = false;
      return;
    }
    setImmediate(() => {
      this.drain();
    });
  }
}

export function visibleTo(event: GateEvent, profile: 'phone' | 'desktop'): boolean {
  return event.audience === 'all' || profile === 'desktop';
}
