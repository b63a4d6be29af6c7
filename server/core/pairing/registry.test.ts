import { describe, expect, it } from 'vitest';
import { PhoneSession, type Transport } from '../../../tests/fixtures/phone-client.js';
import { testSigner, T0 } from '../../../tests/fixtures/pairing-server.js';
import { toBase64Url, type Bytes } from '../../../shared/pairing/bytes.js';
import type { PairingMode } from '../../../shared/pairing/encoding.js';
import { PairingTable, type IssueDevice } from './registry.js';
import { CLAIM_TTL_MS, COLLECT_TTL_MS, CONFIRM_TTL_MS, MAX_ATTEMPTS } from './session.js';
import { pairingUrl } from '../../../shared/pairing/url.js';
import { parseClaim, parseCollect, parseHelloRequest } from '../../../shared/pairing/wire.js';

/**
 * The pairing state machine with an injected clock (SPEC §9a): expiry at 120 s, single use, the
 * fifth failure burns, every transcript field bound by the MAC, both sides derive the same
 * comparison code. The phone is the scripted WebCrypto client; its "network" calls the table.
 */
const random = (n: number): Bytes => globalThis.crypto.getRandomValues(new Uint8Array(n));

async function setup() {
  const clock = { t: T0 };
  const signer = await testSigner();
  const table = new PairingTable({ subtle: globalThis.crypto.subtle, randomBytes: random, now: () => clock.t, signer });
  const issued: string[] = [];
  const issue: IssueDevice = (name) => {
    issued.push(name);
    return Promise.resolve({ id: `dev_${String(issued.length).padStart(16, '0')}`, token: `oracle_dev_${String(issued.length).padStart(16, '0')}_${toBase64Url(random(32))}` });
  };
  // The phone's transport, straight into the table (the HTTP layer is tested elsewhere).
  const transport: Transport = {
    async post(path, body) {
      const reply = (out: object) => ('ok' in out ? { status: 403, body: out } : { status: 200, body: out });
      if (path === '/api/v1/pair/hello') {
        const req = parseHelloRequest(body);
        return req.ok ? reply(await table.hello(req.value)) : { status: 400, body: req };
      }
      if (path === '/api/v1/pair/claim') {
        const req = parseClaim(body);
        if (!req.ok) return { status: 400, body: req };
        const out = await table.claim(req.value);
        return out.ok ? { status: 200, body: out.reply } : { status: 403, body: out };
      }
      const req = parseCollect(body);
      if (!req.ok) return { status: 400, body: req };
      const out = await table.collect(req.value.pid, req.value.proof, issue);
      if (out.ok) return { status: 200, body: out.result };
      return out.code === 'PAIRING_WAITING' ? { status: 202, body: out } : { status: 403, body: out };
    },
  };
  const open = (mode: PairingMode = 'qr') => {
    const o = table.open(mode);
    if ('ok' in o) throw new Error(o.reason);
    return { ...o, phone: mode === 'qr' ? PhoneSession.fromQr(pairingUrl('https://192.0.2.1:8443', o), transport) : PhoneSession.fromCode(o.code, transport) };
  };
  return { clock, table, issued, transport, open };
}

describe('pairing session state machine', () => {
  it('pairs: claim, same comparison code on both screens, desktop accept, one sealed delivery', async () => {
    const { table, open, issued } = await setup();
    const { pid, phone } = open();
    await phone.doHello();
    const code = await phone.doClaim('Pixel 8');
    const view = table.view(pid);
    expect(view).toMatchObject({ state: 'claimed', name: 'Pixel 8', comparison_code: code });
    expect(code).toMatch(/^\d{6}$/u);
    expect(table.confirm(pid, true)).toMatchObject({ state: 'approved' });
    const paired = await phone.doResult(0);
    expect(paired.token).toMatch(/^oracle_dev_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/u);
    expect(paired.deviceKey.privateKey.extractable).toBe(false);
    expect(issued).toEqual(['Pixel 8']);
    // INVARIANT: single use — the result is delivered once, and the session takes no new claim.
    await expect(phone.doResult(0)).rejects.toMatchObject({ status: 403, body: { code: 'PAIRING_USED' } });
    await expect(phone.doHello()).rejects.toMatchObject({ body: { code: 'PAIRING_USED' } });
    expect(issued).toHaveLength(1);
  });

  it('accepts a claim at 119.999 s and refuses one at 120 s', async () => {
    const { clock, open } = await setup();
    const a = open();
    const b = open();
    await a.phone.doHello();
    await b.phone.doHello();
    clock.t = T0 + CLAIM_TTL_MS - 1;
    await expect(a.phone.doClaim('a')).resolves.toMatch(/^\d{6}$/u);
    clock.t = T0 + CLAIM_TTL_MS;
    await expect(b.phone.doClaim('b')).rejects.toMatchObject({ body: { code: 'PAIRING_EXPIRED' } });
    await expect(b.phone.doHello()).rejects.toMatchObject({ body: { code: 'PAIRING_EXPIRED' } });
  });

  it('expires an unconfirmed claim and an uncollected approval', async () => {
    const { clock, table, open } = await setup();
    const a = open();
    await a.phone.doHello();
    await a.phone.doClaim('a');
    clock.t += CONFIRM_TTL_MS;
    expect(table.confirm(a.pid, true)).toMatchObject({ ok: false, code: 'PAIRING_EXPIRED' });
    expect(table.view(a.pid)?.state).toBe('expired');
    const b = open();
    await b.phone.doHello();
    await b.phone.doClaim('b');
    table.confirm(b.pid, true);
    clock.t += COLLECT_TTL_MS;
    await expect(b.phone.doResult(0)).rejects.toMatchObject({ body: { code: 'PAIRING_EXPIRED' } });
  });

  it('burns the session on the fifth wrong code or mac; the right one is refused after', async () => {
    const { table, open } = await setup();
    const { pid, code, phone } = open();
    const hello = await phone.doHello();
    const valid = await validClaim(phone);
    const wrongCode = { ...valid, code: code === '00000000' ? '00000001' : '00000000' };
    const wrongMac = { ...valid, mac: toBase64Url(random(32)) };
    for (let i = 1; i < MAX_ATTEMPTS; i += 1) {
      const out = await table.claim(claimOf(i % 2 === 0 ? wrongCode : wrongMac));
      expect(out).toMatchObject({ ok: false, code: 'PAIRING_PROOF', attempts: i, burned: false });
    }
    expect(table.view(pid)).toMatchObject({ state: 'open', attempts: MAX_ATTEMPTS - 1 });
    expect(await table.claim(claimOf(wrongCode))).toMatchObject({ code: 'PAIRING_PROOF', attempts: MAX_ATTEMPTS, burned: true });
    expect(await table.claim(claimOf(valid))).toMatchObject({ ok: false, code: 'PAIRING_BURNED' });
    expect(await table.hello({ pid: hello.pid })).toMatchObject({ ok: false, code: 'PAIRING_BURNED' });
  });

  it('counts parallel guesses in arrival order: at most five are ever judged', async () => {
    const { table, open } = await setup();
    const { pid, phone } = open();
    await phone.doHello();
    const valid = await validClaim(phone);
    const guesses = Array.from({ length: 40 }, (_, i) => ({ ...valid, code: String(i).padStart(8, '0') }));
    const outs = await Promise.all([...guesses, valid].map((g) => table.claim(claimOf(g))));
    expect(outs.filter((o) => !o.ok && o.code === 'PAIRING_PROOF')).toHaveLength(MAX_ATTEMPTS);
    expect(outs.at(-1)).toMatchObject({ ok: false, code: 'PAIRING_BURNED' });
    expect(table.view(pid)?.state).toBe('burned');
  });

  it('refuses a claim for a hello it never gave, and off-curve keys, as counted failures', async () => {
    const { table, open } = await setup();
    const { pid, phone } = open();
    await phone.doHello();
    const valid = await validClaim(phone);
    expect(await table.claim(claimOf({ ...valid, nonce_s: toBase64Url(random(32)) }))).toMatchObject({ reason: 'unknown hello', attempts: 1 });
    const offCurve = new Uint8Array(65);
    offCurve[0] = 4;
    expect(await table.claim(claimOf({ ...valid, d_pub: toBase64Url(offCurve) }))).toMatchObject({ reason: 'bad public key', attempts: 2 });
    expect(table.view(pid)?.attempts).toBe(2);
  });

  it('lets the desktop accept only after a claim, and reject or cancel before delivery', async () => {
    const { table, open } = await setup();
    const a = open();
    expect(table.confirm(a.pid, true)).toMatchObject({ ok: false, code: 'PAIRING_WAITING' });
    expect(table.confirm(a.pid, false)).toMatchObject({ state: 'rejected' });
    await expect(a.phone.doHello()).rejects.toMatchObject({ body: { code: 'PAIRING_REJECTED' } });
    const b = open();
    await b.phone.doHello();
    await b.phone.doClaim('b');
    await expect(b.phone.doResult(0)).rejects.toMatchObject({ status: 202, body: { code: 'PAIRING_WAITING' } });
    table.confirm(b.pid, false);
    await expect(b.phone.doResult(0)).rejects.toMatchObject({ body: { code: 'PAIRING_REJECTED' } });
  });

  it('delivers only to the holder of the claimed device key', async () => {
    const { table, open } = await setup();
    const { pid, phone } = open();
    await phone.doHello();
    await phone.doClaim('a');
    table.confirm(pid, true);
    const issue: IssueDevice = () => Promise.reject(new Error('must not be called'));
    expect(await table.collect(pid, random(64), issue)).toMatchObject({ ok: false, code: 'PAIRING_PROOF' });
    expect(table.view(pid)?.state).toBe('approved');
  });

  it('pairs in the typed-code fallback, finding the one open typed session', async () => {
    const { table, open } = await setup();
    open('code');
    const { pid, phone } = open('code'); // a new typed session cancels the previous open one
    const hello = await phone.doHello();
    expect(hello).toMatchObject({ pid, mode: 'code' });
    const code = await phone.doClaim('typed');
    expect(table.view(pid)?.comparison_code).toBe(code);
    table.confirm(pid, true);
    await expect(phone.doResult(0)).resolves.toMatchObject({ comparison: code });
  });

  it('makes 8-digit codes, 16-byte secrets and distinct pids', async () => {
    const { table } = await setup();
    const opened = Array.from({ length: 12 }, () => table.open('qr')).map((o) => ('ok' in o ? expect.unreachable(o.reason) : o));
    for (const o of opened) {
      expect(o.code).toMatch(/^\d{8}$/u);
      expect(o.s).toHaveLength(16);
      expect(o.pid).toMatch(/^pp_[0-9a-f]{24}$/u);
    }
    expect(new Set(opened.map((o) => o.pid)).size).toBe(12);
  });
});

describe('the bounded table', () => {
  it('refuses the 17th live session with PAIRING_FULL and cancels none; one ending makes room', async () => {
    const { table, clock } = await setup();
    const opened = Array.from({ length: 16 }, () => table.open('qr'));
    expect(opened.every((o) => !('ok' in o))).toBe(true);
    const refusedOpen = table.open('qr');
    expect(refusedOpen).toMatchObject({ ok: false, code: 'PAIRING_FULL' });
    expect('ok' in refusedOpen ? refusedOpen.reason : '').toMatch(/16 pairing sessions are live; the first ends in 120 s/u);
    for (const o of opened) if (!('ok' in o)) expect(table.view(o.pid)?.state).toBe('open');
    clock.t += 121_000;
    expect(table.open('qr')).not.toHaveProperty('ok');
  });
});

/** A genuine claim the phone would send, prepared but not sent. */
function validClaim(phone: PhoneSession) {
  return phone.prepareClaim('probe');
}

function claimOf(wire: object) {
  const parsed = parseClaim(wire);
  if (!parsed.ok) throw new TypeError(parsed.message);
  return parsed.value;
}

