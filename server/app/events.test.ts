import { describe, expect, it } from 'vitest';
import { EventHub, type GateEvent } from './events.js';

const turn = () => new Promise((r) => setImmediate(r));
async function settle(): Promise<void> {
  for (let i = 0; i < 200; i++) await turn();
}

describe('EventHub', () => {
  it('delivers every event to every stream in publish order, in bounded turns, never inside publish', async () => {
    const hub = new EventHub();
    const got: GateEvent[][] = Array.from({ length: 100 }, () => []);
    for (const list of got) hub.subscribe(undefined, (e) => list.push(e));
    hub.publish('halt', { mode: 'halted' });
    hub.publish('approval.cancelled', { approval_id: 'ap_1' });
    // Publishing returns before any stream is written: the publisher's own answer comes first.
    expect(got.every((l) => l.length === 0)).toBe(true);
    await turn();
    // One turn serves a bounded batch, not all 200 deliveries.
    const first = got.reduce((n, l) => n + l.length, 0);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(200);
    await settle();
    for (const list of got) expect(list.map((e) => e.type)).toEqual(['halt', 'approval.cancelled']);
    expect(got[0]?.[0]?.json).toBe('{"mode":"halted"}');
  });

  it('skips a stream that closed before its turn and gives a late subscriber the replay only', async () => {
    const hub = new EventHub();
    const early: string[] = [];
    const closed: string[] = [];
    hub.subscribe(undefined, (e) => early.push(e.type));
    const sub = hub.subscribe(undefined, (e) => closed.push(e.type));
    hub.publish('one', {});
    sub.close();
    const late: string[] = [];
    const replay = hub.subscribe(0, (e) => late.push(e.type)).replay;
    await settle();
    expect(early).toEqual(['one']);
    expect(closed).toEqual([]);
    expect(replay.map((e) => e.type)).toEqual(['one']);
    expect(late).toEqual([]);
  });
});
