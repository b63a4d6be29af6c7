import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PushDelivery, PushMessage } from '../../shared/push-message.js';
import { EventHub } from './events.js';
import { startPushNotifier, type PushResult } from './push-notifier.js';

interface Sent {
  readonly device: string;
  readonly message: PushMessage;
  readonly delivery: PushDelivery;
}

function harness(options: { outcome?: (device: string) => PushResult; devices?: string[] } = {}) {
  const hub = new EventHub();
  const pending: { approval_id: string; tier: 'T2' | 'T3'; expires_at: string }[] = [];
  const sent: Sent[] = [];
  const dropped: string[] = [];
  const reports: string[] = [];
  let release: (() => void) | undefined;
  let hold = false;
  const notifier = startPushNotifier({
    subscribe: (listener) => hub.subscribe(undefined, listener).close,
    pending: () => pending,
    recipients: () => (options.devices ?? ['dev_a']).map((d) => ({ deviceId: d, name: `phone ${d}` })),
    send: async (device, message, delivery) => {
      sent.push({ device, message, delivery });
      if (hold) await new Promise<void>((r) => (release = r));
      return { kind: options.outcome?.(device) ?? 'sent', reason: 'HTTP 500' };
    },
    drop: (d) => dropped.push(d),
    report: (line) => reports.push(line),
    now: () => Date.now(),
  });
  const request = (id: string, tier: 'T2' | 'T3', expiresInMs = 300_000): void => {
    const approval = { approval_id: id, tier, expires_at: new Date(Date.now() + expiresInMs).toISOString(), tool: 'fs.write', preview: { args: { path: '/secret/plan.md' } } };
    pending.push(approval);
    hub.publish('approval.pending', { ...approval, state: 'pending' });
  };
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    await notifier.idle();
  };
  return { hub, pending, sent, dropped, reports, notifier, request, settle, hold: () => (hold = true), release: () => release?.() };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the push notifier', () => {
  it('tells each subscribed device how many wait and the tier, and nothing of the action', async () => {
    const h = harness({ devices: ['dev_a', 'dev_b'] });
    h.request('ap_000000000001', 'T2');
    await h.settle();
    expect(h.sent.map((s) => s.device)).toEqual(['dev_a', 'dev_b']);
    expect(h.sent[0]?.message).toEqual({ v: 1, kind: 'approval', count: 1, tier: 'T2', approval_id: 'ap_000000000001' });
    expect(JSON.stringify(h.sent[0]?.message)).not.toMatch(/fs\.write|secret|plan/u);
    expect(h.sent[0]?.delivery).toMatchObject({ urgency: 'high', topic: 'approvals' });
    expect(h.sent[0]?.delivery.ttlSeconds).toBeGreaterThan(290);
    expect(h.sent[0]?.delivery.ttlSeconds).toBeLessThanOrEqual(300);
    h.notifier.close();
  });

  it('sends HALT to everyone', async () => {
    const h = harness();
    h.hub.publish('halt', { mode: 'halted' });
    await h.settle();
    expect(h.sent.map((s) => s.message)).toEqual([{ v: 1, kind: 'halt', count: 0, tier: null, approval_id: null }]);
    expect(h.sent[0]?.delivery.topic).toBe('halt');
    h.notifier.close();
  });

  it('says how many still wait once one is answered or expires, on the approvals topic, so no phone shows a stale count', async () => {
    const h = harness();
    h.request('ap_000000000001', 'T2');
    h.request('ap_000000000002', 'T2');
    await h.settle();
    h.pending.splice(0, 1);
    h.hub.publish('approval.approved', { approval_id: 'ap_000000000001', state: 'approved' });
    await h.settle();
    h.pending.splice(0, 1);
    h.hub.publish('approval.expired', { approval_id: 'ap_000000000002', state: 'expired' });
    await h.settle();
    const settled = h.sent.filter((s) => s.message.kind === 'settled');
    expect(settled.map((s) => s.message)).toEqual([
      { v: 1, kind: 'settled', count: 1, tier: null, approval_id: null },
      { v: 1, kind: 'settled', count: 0, tier: null, approval_id: null },
    ]);
    // replaces an approval message the push service still holds for an offline phone, not urgent
    expect(settled[0]?.delivery).toMatchObject({ topic: 'approvals', urgency: 'normal' });
    h.notifier.close();
  });

  it('keeps one delivery per device in flight and only the newest behind it', async () => {
    const h = harness();
    h.hold();
    h.request('ap_000000000001', 'T2');
    await new Promise((r) => setImmediate(r));
    for (let i = 2; i <= 9; i++) h.request(`ap_00000000000${String(i)}`, i === 9 ? 'T3' : 'T2');
    await new Promise((r) => setImmediate(r));
    h.release();
    await new Promise((r) => setImmediate(r));
    h.release();
    await h.settle();
    expect(h.sent.map((s) => s.message.count)).toEqual([1, 9]);
    expect(h.sent[1]?.message).toMatchObject({ tier: 'T3', approval_id: 'ap_000000000009' });
    h.notifier.close();
  });

  it('never drops a HALT waiting behind a delivery for the answers that follow it (HALT cancels every approval)', async () => {
    const h = harness();
    h.hold();
    h.request('ap_000000000001', 'T2');
    await new Promise((r) => setImmediate(r));
    h.hub.publish('halt', { mode: 'halted' });
    h.pending.splice(0, 1);
    h.hub.publish('approval.cancelled', { approval_id: 'ap_000000000001', state: 'cancelled' });
    // both reach the notifier while the first delivery is still in flight
    await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 3; i++) {
      h.release();
      await new Promise((r) => setImmediate(r));
    }
    await h.settle();
    expect(h.sent.map((s) => s.message.kind)).toEqual(['approval', 'halt', 'settled']);
    h.notifier.close();
  });

  it('reminds a minute before an unanswered approval expires, and not after it was answered', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const h = harness();
    h.request('ap_000000000001', 'T2', 120_000);
    h.request('ap_000000000002', 'T3', 120_000);
    await vi.advanceTimersByTimeAsync(10);
    h.pending.splice(1, 1);
    h.hub.publish('approval.denied', { approval_id: 'ap_000000000002', state: 'denied' });
    await vi.advanceTimersByTimeAsync(59_000);
    expect(h.sent.filter((s) => s.message.kind === 'expiring')).toEqual([]);
    await vi.advanceTimersByTimeAsync(2_000);
    const reminders = h.sent.filter((s) => s.message.kind === 'expiring');
    expect(reminders.map((s) => s.message)).toEqual([{ v: 1, kind: 'expiring', count: 1, tier: 'T2', approval_id: 'ap_000000000001' }]);
    h.notifier.close();
  });

  it('forgets a subscription its push service calls gone, and reports a failing one once', async () => {
    const h = harness({ devices: ['dev_gone', 'dev_down'], outcome: (d) => (d === 'dev_gone' ? 'gone' : 'failed') });
    h.request('ap_000000000001', 'T2');
    await h.settle();
    h.request('ap_000000000002', 'T2');
    await h.settle();
    expect(h.dropped).toEqual(['dev_gone', 'dev_gone']);
    expect(h.reports.filter((r) => r.includes('phone dev_down'))).toHaveLength(1);
    h.notifier.close();
  });
});
