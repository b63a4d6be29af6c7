import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { requestApproval, type Approval } from '../../core/approvals/approval.js';
import type { Caller } from '../caller.js';
import { controlRoutes, type GateControl } from './control.js';

function pendingCards(n: number): Approval[] {
  return Array.from({ length: n }, (_, i) =>
    requestApproval(
      { approvalId: `ap_${String(i).padStart(4, '0')}`, traceId: `ac_${String(i)}`, tool: 'fs.delete', argHash: `sha256:${String(i)}`, tier: 'T2', reason: 'r', preview: {}, provenance: [], nonce: 'n', session: null, project: null },
      new Date(Date.UTC(2026, 0, 1, 0, 0, n - i)), // the last made is the oldest
    ),
  );
}

function listing(cards: readonly Approval[]) {
  let signatures = 0;
  const control: GateControl = { pending: () => cards, answer: () => Promise.reject(new Error('unused')), halt: () => Promise.resolve(), resume: () => Promise.resolve(true), mode: () => 'normal' };
  const devices = { publicKey: () => undefined, advanceCounter: () => false, list: () => [], revoke: () => false };
  const app = new Hono<{ Variables: { caller: Caller } }>();
  app.use('*', async (c, next) => {
    c.set('caller', { kind: 'desktop', id: 'desktop', name: 'desktop', via: 'token' });
    await next();
  });
  const sign = (): Promise<Uint8Array> => {
    signatures += 1;
    return Promise.resolve(new Uint8Array(64));
  };
  app.route('/', controlRoutes(control, devices, { now: () => Date.now(), sign }));
  return { app, signed: () => signatures };
}

describe('GET /approvals', () => {
  it('lists the oldest page with the total, and signs each card once however often it is listed', async () => {
    const cards = pendingCards(1000);
    const { app, signed } = listing(cards);
    const first = (await (await app.request('/approvals')).json()) as { approvals: Approval[]; pending_total: number };
    expect(first.pending_total).toBe(1000);
    expect(first.approvals).toHaveLength(10);
    expect(first.approvals[0]?.approval_id).toBe('ap_0999');
    expect(signed()).toBe(10);
    await app.request('/approvals');
    expect(signed()).toBe(10);
    const wide = (await (await app.request('/approvals?limit=200')).json()) as { approvals: Approval[] };
    expect(wide.approvals).toHaveLength(200);
    expect(signed()).toBe(200);
    for (const bad of ['0', '201', '1.5', 'x']) expect((await app.request(`/approvals?limit=${bad}`)).status).toBe(400);
  });
});
