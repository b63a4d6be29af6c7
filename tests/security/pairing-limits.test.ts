import { describe, expect, it } from 'vitest';
import { pairingHarness } from '../fixtures/pairing-server.js';
import { pair, PhoneSession } from '../fixtures/phone-client.js';

/**
 * SPEC §9 and §15 "pairing brute force": per-address rate limits on every pairing endpoint,
 * desktop-only start and confirm (refused before the handler), strict input, and an audit
 * record for each failure that never carries the code, s, a MAC or the token.
 */
describe('pairing limits', () => {
  it('limits each address to 10 pairing requests a minute, across endpoints, counted in one audit record a minute', async () => {
    const h = await pairingHarness();
    const start = await h.start();
    const a = h.transport('192.0.2.7');
    const paths = ['/api/v1/pair/hello', '/api/v1/pair/claim', '/api/v1/pair/result'];
    const statuses: number[] = [];
    for (let i = 0; i < 13; i += 1) statuses.push((await a.post(paths[i % 3] ?? '', { pid: start.pid })).status);
    expect(statuses.slice(0, 10).every((s) => s !== 429)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429, 429]);
    expect((await h.transport('192.0.2.8').post('/api/v1/pair/hello', { pid: start.pid })).status).toBe(200);
    expect(h.audit.filter((r) => r.outcome === 'refused_many')).toEqual([]);
    await h.flush();
    expect(h.audit.filter((r) => r.outcome === 'refused_many')).toEqual([expect.objectContaining({ actor: 'oracle', detail: { counts: { 'claim_refused:INPUT': 3, 'rate_limited:PAIRING_RATE_LIMITED': 3 }, addresses: 1, first_addresses: ['192.0.2.7'] } })]);
    h.clock.t += 60_001;
    expect((await a.post('/api/v1/pair/hello', { pid: start.pid })).status).toBe(200);
  });

  it('keeps start, sessions and confirm for the desktop session; refused callers never reach the handler', async () => {
    const h = await pairingHarness();
    for (const auth of [undefined, 'Bearer junk', 'Bearer agent', 'Bearer desktop-profile-device']) {
      for (const [method, path, body] of [
        ['POST', '/api/v1/pair/start', {}],
        ['GET', '/api/v1/pair/sessions/pp_000000000000000000000000', undefined],
        ['POST', '/api/v1/pair/confirm', { pid: 'pp_000000000000000000000000', accept: true }],
      ] as const) {
        const res = await h.request(path, { method, ...(auth === undefined ? {} : { auth }), ...(body === undefined ? {} : { body }) });
        expect(res.status, `${String(auth)} ${path}`).toBe(auth === undefined || auth === 'Bearer junk' ? 401 : 403);
      }
    }
    expect(h.audit).toEqual([]); // no session was opened, nothing was confirmed
  });

  it('keeps the phone endpoints open without a credential, whatever bearer is sent', async () => {
    const h = await pairingHarness();
    const start = await h.start();
    const res = await h.app.request('/api/v1/pair/hello', { method: 'POST', headers: { authorization: 'Bearer junk', 'x-test-peer': '192.0.2.3' }, body: JSON.stringify({ pid: start.pid }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses malformed messages with 400 (audited in a count, not counted as attempts), unknown sessions with 404, large bodies with 413', async () => {
    const h = await pairingHarness();
    const start = await h.start();
    const phone = PhoneSession.fromQr(start.url ?? '', h.transport('192.0.2.9'));
    await phone.doHello();
    const good = await phone.prepareClaim('Pixel 8');
    const t = h.transport('192.0.2.10');
    for (const body of [[good], { ...good, extra: 1 }, { ...good, name: 'evil\u202Eelif' }, { ...good, d_pub: 'AA' }, { ...good, code: '1234' }, 'x']) {
      expect((await t.post('/api/v1/pair/claim', body)).status).toBe(400);
    }
    expect((await h.view(start.pid)).attempts).toBe(0);
    expect((await t.post('/api/v1/pair/hello', { pid: 'pp_ffffffffffffffffffffffff' })).status).toBe(404);
    // Anyone can send these without end: counted, one record a minute (red team, session 32).
    await h.flush();
    expect(h.audit.filter((r) => r.outcome === 'refused_many').map((r) => r.detail)).toEqual([{ counts: { 'claim_refused:INPUT': 6, 'hello_refused:PAIRING_UNKNOWN': 1 }, addresses: 1, first_addresses: ['192.0.2.10'] }]);
    expect((await t.post('/api/v1/pair/hello', { pid: start.pid, typed: true })).status).toBe(400);
    const huge = await h.request('/api/v1/pair/claim', { method: 'POST', body: { ...good, name: 'x'.repeat(5000) } });
    expect(huge.status).toBe(413);
    await expect(phone.sendClaim()).resolves.toMatch(/^\d{6}$/u);
  });

  it('audits every failure and the success, with no code, secret, mac or token in the log', async () => {
    const h = await pairingHarness();
    const start = await h.start();
    const phone = PhoneSession.fromQr(start.url ?? '', h.transport('192.0.2.11'));
    await phone.doHello();
    const good = await phone.prepareClaim('Pixel 8');
    await h.transport('192.0.2.12').post('/api/v1/pair/claim', { ...good, code: start.code === '00000000' ? '00000001' : '00000000' });
    const paired = await pair(PhoneSession.fromQr(start.url ?? '', h.transport('192.0.2.11')), 'Pixel 8', async (_c, pid) => {
      await h.confirm(pid, true);
    });
    const records = h.audit.filter((r) => r.session === start.pid);
    expect(records.map((r) => [r.outcome, r.code])).toEqual([
      ['opened', null],
      ['claim_refused', 'PAIRING_PROOF'],
      ['claimed', null],
      ['accepted', null],
      ['paired', null],
    ]);
    expect(records.every((r) => r.kind === 'pairing')).toBe(true);
    const log = JSON.stringify(h.audit);
    const s = /s=([^&]+)/u.exec(start.url ?? '')?.[1] ?? 'missing';
    for (const secret of [start.code, s, good.mac, paired.token, paired.token.slice(-43)]) expect(log).not.toContain(secret);
  });

  it('writes one record a minute however many addresses flood it with refusals', async () => {
    const h = await pairingHarness();
    const before = h.audit.length;
    for (let i = 0; i < 300; i += 1) expect((await h.transport(`198.18.${String(i >> 8)}.${String(i & 255)}`).post('/api/v1/pair/hello', { pid: 'pp_000000000000000000000000' })).status).toBe(404);
    expect(h.audit.length).toBe(before);
    await h.flush();
    const [tally] = h.audit.slice(before);
    expect(h.audit.length).toBe(before + 1);
    expect(tally).toMatchObject({ kind: 'pairing', outcome: 'refused_many', detail: { counts: { 'hello_refused:PAIRING_UNKNOWN': 300 }, addresses: 300 } });
    expect((tally?.detail as { first_addresses: string[] }).first_addresses).toHaveLength(64);
  });

  it('caps hellos per session', async () => {
    const h = await pairingHarness();
    const start = await h.start();
    const statuses: number[] = [];
    for (let i = 0; i < 9; i += 1) statuses.push((await h.transport(`192.0.2.${String(20 + i)}`).post('/api/v1/pair/hello', { pid: start.pid })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
  });

  it('refuses a 17th live pairing session with a stable code and an audit record, cancelling none', async () => {
    const h = await pairingHarness();
    const opened = [];
    for (let i = 0; i < 16; i += 1) opened.push(await h.start());
    const res = await h.request('/api/v1/pair/start', { method: 'POST', auth: 'Bearer desktop', body: { mode: 'qr' } });
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ error: { code: 'RATE_LIMITED', pairing: 'PAIRING_FULL', message: expect.stringMatching(/16 pairing sessions are live/u) as unknown } });
    expect(h.audit.filter((r) => r.outcome === 'start_refused')).toEqual([expect.objectContaining({ code: 'PAIRING_FULL' })]);
    for (const o of opened) expect((await h.view(o.pid)).state).toBe('open');
  });
});
