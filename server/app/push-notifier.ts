import type { PushDelivery, PushMessage } from '../../shared/push-message.js';
import type { GateEvent } from './events.js';

/** Where a message goes: one subscribed device. */
export interface PushRecipient {
  readonly deviceId: string;
  readonly name: string;
}

/** `skipped`: the device had no subscription any more by the time its turn came (it turned push off). */
export type PushResult = 'sent' | 'gone' | 'failed' | 'skipped';

export interface PushNotifierDeps {
  /** The gate's live events (the hub); returns the unsubscribe. */
  readonly subscribe: (listener: (event: GateEvent) => void) => () => void;
  /** The approvals waiting for a person now. */
  readonly pending: () => readonly { readonly approval_id: string; readonly tier: 'T2' | 'T3'; readonly expires_at: string }[];
  /** Active devices with a subscription. */
  readonly recipients: () => readonly PushRecipient[];
  readonly send: (deviceId: string, message: PushMessage, delivery: PushDelivery) => Promise<{ kind: PushResult; reason?: string }>;
  /** The push service said the subscription is gone: forget it. */
  readonly drop: (deviceId: string) => void;
  readonly report: (line: string) => void;
  readonly now: () => number;
  /** How long before an unanswered approval expires its reminder goes out (default 60 s). */
  readonly warnBeforeMs?: number;
}

export interface PushNotifier {
  /** Resolves when every message handed to a push service so far has an answer (tests, shutdown). */
  idle(): Promise<void>;
  close(): void;
}

interface Job {
  readonly message: PushMessage;
  readonly delivery: PushDelivery;
}
/**
 * One device's deliveries: the one in flight, and behind it the newest waiting of each topic (a
 * HALT is never displaced by the approvals' messages that follow it).
 */
interface Lane {
  running: Promise<void>;
  readonly next: Map<string, Job>;
}

const WARN_BEFORE_MS = 60_000;
/** A HALT stays news for an hour; an approval only until it expires; an answer as long as an approval lives. */
const HALT_TTL_S = 3600;
const SETTLED_TTL_S = 300;

/**
 * Tells the paired phones that turned notifications on (issue 15): a new approval, an approval
 * about to expire, an approval answered (so the notification does not go stale), a HALT. Each message says only how many wait and the tier (shared/push-message.ts).
 * Per device, one delivery at a time and only the newest waiting one of each topic after it: a
 * burst of fifty approvals is two messages, and the push service's topic collapses them further.
 */
export function startPushNotifier(deps: PushNotifierDeps): PushNotifier {
  const warnBefore = deps.warnBeforeMs ?? WARN_BEFORE_MS;
  const reminders = new Map<string, NodeJS.Timeout>();
  const lanes = new Map<string, Lane>();
  const failing = new Set<string>();
  let closed = false;

  const deliver = (deviceId: string, name: string, message: PushMessage, delivery: PushDelivery): void => {
    const lane = lanes.get(deviceId);
    if (lane !== undefined) {
      lane.next.delete(delivery.topic);
      lane.next.set(delivery.topic, { message, delivery });
      return;
    }
    const run = async (first: Job): Promise<void> => {
      let job: Job | undefined = first;
      while (job !== undefined && !closed) {
        const outcome = await deps.send(deviceId, job.message, job.delivery).catch((e: unknown) => ({ kind: 'failed' as const, reason: e instanceof Error ? e.message : 'unknown error' }));
        if (outcome.kind === 'gone') {
          deps.drop(deviceId);
          deps.report(`push: ${name}'s subscription is gone (its push service said so); it turns notifications on again from the phone`);
        } else if (outcome.kind === 'failed' && !failing.has(deviceId)) {
          failing.add(deviceId);
          deps.report(`push: a message to ${name} was not delivered (${outcome.reason ?? 'unknown'}); the phone still sees everything while ORACLE is open on it`);
        } else if (outcome.kind === 'sent') {
          failing.delete(deviceId);
        }
        const current = lanes.get(deviceId);
        const [topic, queued] = current?.next.entries().next().value ?? [];
        job = queued;
        if (topic !== undefined) current?.next.delete(topic);
      }
      lanes.delete(deviceId);
    };
    const entry: Lane = { running: Promise.resolve(), next: new Map() };
    lanes.set(deviceId, entry);
    entry.running = run({ message, delivery });
  };

  const broadcast = (message: PushMessage, delivery: PushDelivery): void => {
    for (const r of deps.recipients()) deliver(r.deviceId, r.name, message, delivery);
  };

  const waiting = (): number => deps.pending().length;
  const ttlUntil = (expiresAt: string): number => Math.max(30, Math.ceil((Date.parse(expiresAt) - deps.now()) / 1000));

  const remind = (id: string, tier: 'T2' | 'T3', expiresAt: string): void => {
    const due = Date.parse(expiresAt) - warnBefore - deps.now();
    if (due <= 0 || reminders.has(id)) return;
    const timer = setTimeout(() => {
      reminders.delete(id);
      if (!deps.pending().some((a) => a.approval_id === id)) return;
      broadcast({ v: 1, kind: 'expiring', count: waiting(), tier, approval_id: id }, { ttlSeconds: ttlUntil(expiresAt), urgency: 'high', topic: 'approvals' });
    }, due);
    timer.unref();
    reminders.set(id, timer);
  };

  const unsubscribe = deps.subscribe((event) => {
    if (closed) return;
    if (event.type === 'halt') {
      broadcast({ v: 1, kind: 'halt', count: waiting(), tier: null, approval_id: null }, { ttlSeconds: HALT_TTL_S, urgency: 'high', topic: 'halt' });
      return;
    }
    if (!event.type.startsWith('approval.')) return;
    const id = event.data['approval_id'];
    if (typeof id !== 'string') return;
    if (event.type !== 'approval.pending') {
      clearTimeout(reminders.get(id));
      reminders.delete(id);
      // Answered or expired: the phone's "N waiting" is stale; same topic, so an undelivered
      // approval message is replaced at the push service rather than delivered late.
      broadcast({ v: 1, kind: 'settled', count: waiting(), tier: null, approval_id: null }, { ttlSeconds: SETTLED_TTL_S, urgency: 'normal', topic: 'approvals' });
      return;
    }
    const tier = event.data['tier'] === 'T3' ? 'T3' : 'T2';
    const expiresAt = typeof event.data['expires_at'] === 'string' ? event.data['expires_at'] : new Date(deps.now() + 300_000).toISOString();
    broadcast({ v: 1, kind: 'approval', count: waiting(), tier, approval_id: id }, { ttlSeconds: ttlUntil(expiresAt), urgency: 'high', topic: 'approvals' });
    remind(id, tier, expiresAt);
  });

  return {
    async idle() {
      while (lanes.size > 0) await Promise.all([...lanes.values()].map((l) => l.running));
    },
    close() {
      closed = true;
      unsubscribe();
      for (const t of reminders.values()) clearTimeout(t);
      reminders.clear();
    },
  };
}
