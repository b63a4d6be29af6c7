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
}

type Listener = (event: GateEvent) => void;

const KEEP = 500;

export class EventHub {
  private next = 1;
  private readonly recent: GateEvent[] = [];
  private readonly listeners = new Set<Listener>();

  publish(type: string, data: Readonly<Record<string, unknown>>, audience: Audience = 'all'): void {
    const event: GateEvent = { id: this.next++, type, audience, data };
    this.recent.push(event);
    if (this.recent.length > KEEP) this.recent.shift();
    for (const listener of [...this.listeners]) listener(event);
  }

  /** Events after `lastId` still in the buffer, then live ones; returns the unsubscribe. */
  subscribe(lastId: number | undefined, listener: Listener): { replay: readonly GateEvent[]; close: () => void } {
    this.listeners.add(listener);
    return {
      replay: lastId === undefined ? [] : this.recent.filter((e) => e.id > lastId),
      close: () => this.listeners.delete(listener),
    };
  }

  get subscribers(): number {
    return this.listeners.size;
  }
}

export function visibleTo(event: GateEvent, profile: 'phone' | 'desktop'): boolean {
  return event.audience === 'all' || profile === 'desktop';
}
