import { request } from 'node:https';
import { join } from 'node:path';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono, type Context } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTlsMaterial, type TlsMaterial } from '../../server/adapters/certs.js';
import { CredentialStore } from '../../server/adapters/credentials-store.js';
import { listenHttps, type Listening } from '../../server/adapters/https-listener.js';
import type { AuditBody } from '../../server/core/audit/record.js';
import { fromBase64Url, toBase64Url, type Bytes } from '../../shared/pairing/bytes.js';
import { ephemeralEcdh, importPoint, importTlsSigner, pairingSecret, unsealToken } from '../../shared/pairing/protocol.js';
import { parseBearer } from '../../server/core/credentials/token.js';
import type { Caller, CallerVerifier } from '../../server/http/caller.js';
import { fail } from '../../server/http/errors.js';
import { createPairingService, type StartView } from '../../server/http/pairing-service.js';
import { pairingDesktopRoutes, pairingRoutes } from '../../server/http/routes/pairing.js';
import { pair, PhoneSession, type Transport } from '../fixtures/phone-client.js';
import { tempTree } from '../fixtures/temp-tree.js';

/**
 * Pairing over real HTTPS on 127.0.0.1 (SPEC §9a), with the real TLS material, the real
 * Argon2id credential store and createApp's bearer middleware. The phone is the scripted
 * WebCrypto client; the desktop is a real desktop credential.
 */
interface Reply {
  readonly status: number;
  readonly body: unknown;
}

function httpsJson(origin: string, ca: string, path: string, init: { method: string; body?: unknown; auth?: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (init.auth !== undefined) headers['authorization'] = `Bearer ${init.auth}`;
    const req = request(`${origin}${path}`, { method: init.method, ca, headers, timeout: 30_000, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text === '' ? null : (JSON.parse(text) as unknown) });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

describe('pairing end to end over HTTPS', () => {
  const tree = tempTree('oracle-pair-e2e-');
  const audit: AuditBody[] = [];
  const skew = { ms: 0 };
  let tls: TlsMaterial;
  let credentials: CredentialStore;
  let listening: Listening;
  let origin = '';
  const desktopSecret = toBase64Url(globalThis.crypto.getRandomValues(new Uint8Array(32)));

  const phoneTransport = (): Transport => ({ post: (path, body) => httpsJson(origin, tls.caCert, path, { method: 'POST', body }) });
  const desktop = {
    start: async (mode: 'qr' | 'code' = 'qr'): Promise<StartView> => {
      const res = await httpsJson(origin, tls.caCert, '/api/v1/pair/start', { method: 'POST', auth: desktopSecret, body: { mode } });
      expect(res.status).toBe(201);
      return res.body as StartView;
    },
    view: async (pid: string) => (await httpsJson(origin, tls.caCert, `/api/v1/pair/sessions/${pid}`, { method: 'GET', auth: desktopSecret })).body as Record<string, unknown>,
    confirm: (pid: string, accept: boolean) => httpsJson(origin, tls.caCert, '/api/v1/pair/confirm', { method: 'POST', auth: desktopSecret, body: { pid, accept } }),
  };
  /** The person: compares the code on the phone with the desktop's, then confirms there. */
  const person = async (code: string, pid: string) => {
    const view = await desktop.view(pid);
    expect(view).toMatchObject({ state: 'claimed', comparison_code: code });
    expect((await desktop.confirm(pid, true)).status).toBe(200);
  };

  beforeAll(async () => {
    const home = tree.dir('home');
    tree.dir('home/data');
    tls = await ensureTlsMaterial(home, { dns: ['localhost'], ips: ['127.0.0.1'] });
    credentials = CredentialStore.open(join(home, 'data'));
    const signer = await importTlsSigner(globalThis.crypto.subtle, tls.key);
    const service = createPairingService({
      core: { subtle: globalThis.crypto.subtle, randomBytes: (n) => globalThis.crypto.getRandomValues(new Uint8Array(n)), now: () => Date.now() + skew.ms, signer },
      origins: () => [origin],
      issueDevice: (name, jwk) => credentials.issue('dev', name, { profile: 'phone', public_key_jwk: jwk }),
      audit: (body) => {
        audit.push(body);
        return Promise.resolve();
      },
      rateLimit: { max: 500, windowMs: 60_000 }, // every scenario here comes from 127.0.0.1
    });
    // As main.ts does it: the credential store resolves bearers; the desktop is a loopback-only
    // session (a cookie in main.ts, a test secret here).
    const callers: CallerVerifier = {
      async verify(req) {
        if (req.loopback && req.authorization === `Bearer ${desktopSecret}`) return { kind: 'desktop', id: 'desktop', name: 'desktop', via: 'token' };
        const token = parseBearer(req.authorization);
        const record = token === undefined ? undefined : await credentials.verify(token);
        if (record === undefined) return undefined;
        return record.kind === 'ag' ? { kind: 'agent', id: record.id, name: record.name } : { kind: 'device', id: record.id, name: record.name, profile: record.profile ?? 'phone' };
      },
    };
    const loopback = (c: Context) => ['127.0.0.1', '::1', '::ffff:127.0.0.1'].includes(getConnInfo(c).remote.address ?? '');
    // As app.ts should mount it: public pairing routes, the bearer middleware, the desktop routes.
    const app = new Hono<{ Variables: { caller: Caller } }>();
    app.route('/api/v1/pair', pairingRoutes(service, { clientAddress: (c) => getConnInfo(c).remote.address }));
    app.use('/api/v1/*', async (c: Context<{ Variables: { caller: Caller } }>, next) => {
      const caller = await callers.verify({ authorization: c.req.header('authorization'), cookie: undefined, loopback: loopback(c) });
      if (caller === undefined) return fail(c, 'UNAUTHENTICATED', 'this route needs a device, desktop or agent credential');
      c.set('caller', caller);
      await next();
      return undefined;
    });
    app.route('/api/v1/pair', pairingDesktopRoutes(service));
    app.get('/api/v1/whoami', (c) => c.json(c.get('caller')));
    listening = await listenHttps(app, { hostname: '127.0.0.1', port: 0, key: tls.key, cert: tls.cert });
    origin = `https://127.0.0.1:${String(listening.port)}`;
    expect(toBase64Url(signer.k)).toBe(Buffer.from(tls.spkiSha256, 'base64').toString('base64url'));
  });

  afterAll(async () => {
    await listening.close();
    tree.dispose();
  });

  it('pairs a WebCrypto phone from the QR: working bearer token, non-extractable device key registered', async () => {
    const start = await desktop.start();
    expect(start.url).toMatch(new RegExp(`^${origin}/pair#v=1&p=pp_[0-9a-f]{24}&c=\\d{8}&k=[A-Za-z0-9_-]{43}&s=[A-Za-z0-9_-]{22}&e=\\d+$`, 'u'));
    expect(start.qr_svg).toContain('<svg');
    const paired = await pair(PhoneSession.fromQr(start.url ?? '', phoneTransport()), 'Pixel 8', person);
    expect(paired.deviceKey.privateKey.extractable).toBe(false);
    expect(toBase64Url(paired.k)).toBe(Buffer.from(tls.spkiSha256, 'base64').toString('base64url'));
    // The token is a working bearer: the credential store's Argon2id check admits it as this phone.
    const asPhone = await httpsJson(origin, tls.caCert, '/api/v1/whoami', { method: 'GET', auth: paired.token });
    expect(asPhone).toMatchObject({ status: 200, body: { kind: 'device', id: paired.deviceId, name: 'Pixel 8', profile: 'phone' } });
    expect((await httpsJson(origin, tls.caCert, '/api/v1/whoami', { method: 'GET', auth: `${paired.token.slice(0, -2)}AA` })).status).toBe(401);
    // The stored public key is the phone's D: a signature by D verifies with it.
    const record = credentials.get(paired.deviceId);
    expect(record).toMatchObject({ kind: 'dev', name: 'Pixel 8', profile: 'phone' });
    const subtle = globalThis.crypto.subtle;
    const stored = await subtle.importKey('jwk', record?.public_key_jwk ?? {}, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
    const msg = new TextEncoder().encode('POST /api/v1/halt');
    const sig = await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, paired.deviceKey.privateKey, msg);
    expect(await subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, stored, sig, msg)).toBe(true);
    expect(audit.filter((a) => a.session === start.pid).map((a) => a.outcome)).toEqual(['opened', 'claimed', 'accepted', 'paired']);
    // Single use: the session answers no second hello.
    expect((await phoneTransport().post('/api/v1/pair/hello', { pid: start.pid })).status).toBe(403);
    // Nothing secret reaches the audit log.
    const log = JSON.stringify(audit);
    for (const secret of [start.code, paired.token.slice(-43), /s=([^&]+)/u.exec(start.url ?? '')?.[1] ?? 'missing']) expect(log).not.toContain(secret);
  });

  it('stops a relay without s: its own key fails the mac and counts; it cannot collect or unseal the token', async () => {
    const start = await desktop.start();
    const subtle = globalThis.crypto.subtle;
    const relayD = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    const relayEp = await ephemeralEcdh(subtle);
    const seen: Record<string, unknown>[] = [];
    const honest = phoneTransport();
    // The relay terminates the phone's connection, sees every message, and swaps in its own keys.
    const relay: Transport = {
      async post(path, body) {
        seen.push({ path, body });
        if (path !== '/api/v1/pair/claim') return honest.post(path, body);
        const claim = body as Record<string, string>;
        const forged = { ...claim, d_pub: toBase64Url(new Uint8Array(await subtle.exportKey('raw', relayD.publicKey))), ep_pub: toBase64Url(relayEp.raw) };
        return honest.post(path, forged);
      },
    };
    const phone = PhoneSession.fromQr(start.url ?? '', relay);
    await phone.doHello();
    await expect(phone.doClaim('Pixel 8')).rejects.toMatchObject({ status: 403, body: { error: { pairing: 'PAIRING_PROOF' } } });
    expect(await desktop.view(start.pid)).toMatchObject({ state: 'open', attempts: 1, name: null });
    expect(audit.filter((a) => a.session === start.pid).at(-1)).toMatchObject({ outcome: 'claim_refused', code: 'PAIRING_PROOF', reasons: ['wrong mac'] });

    // The relay now passes the phone's retry through untouched and records every answer.
    const steal = { result: undefined as Record<string, string> | undefined };
    const recordResult: Transport = {
      async post(path, body) {
        const res = await honest.post(path, body);
        seen.push({ path, body, answer: res.body });
        if (path.startsWith('/api/v1/pair/result') && res.status === 200) steal.result = res.body as Record<string, string>;
        return res;
      },
    };
    const phone3 = PhoneSession.fromQr(start.url ?? '', recordResult);
    const paired = await pair(phone3, 'Pixel 8', async (code, pid) => {
      // Meanwhile the relay tries to collect the result itself: it has no D.
      const own = await httpsJson(origin, tls.caCert, '/api/v1/pair/result', { method: 'POST', body: { pid, proof: toBase64Url(new Uint8Array(64)) } });
      expect(own).toMatchObject({ status: 403, body: { error: { pairing: 'PAIRING_PROOF' } } });
      await person(code, pid);
    });
    const result = steal.result;
    const t = phone3.transcript;
    const ep = phone3.ep;
    const es = await importPoint(subtle, phone3.hello?.es ?? new Uint8Array(0), 'ecdh');
    if (result === undefined || t === undefined || ep === undefined || es === undefined) throw new TypeError('flow incomplete');
    const sealed = fromBase64Url(result['sealed_token'] ?? '') ?? new Uint8Array(0);
    const iv = fromBase64Url(result['iv'] ?? '') ?? new Uint8Array(0);
    const deviceId = result['device_id'] ?? '';
    const tryOpen = (own: Parameters<typeof unsealToken>[1]['own'], secret: Bytes) => unsealToken(subtle, { own, peer: es, secret, t, deviceId }, sealed, iv);
    // What a relay knows in QR mode (the code, every public value, its own ECDH key) opens nothing.
    expect(await tryOpen(relayEp.privateKey, pairingSecret('code', new Uint8Array(0), start.code))).toBeUndefined();
    // Even handed the phone's ephemeral ECDH key, without s the seal stays shut.
    expect(await tryOpen(ep.privateKey, pairingSecret('code', new Uint8Array(0), start.code))).toBeUndefined();
    expect(await tryOpen(ep.privateKey, globalThis.crypto.getRandomValues(new Uint8Array(16)))).toBeUndefined();
    // Control: with s (which only the QR carries) it opens, and holds the phone's token.
    const s = fromBase64Url(/s=([^&]+)/u.exec(start.url ?? '')?.[1] ?? '') ?? new Uint8Array(0);
    expect(new TextDecoder().decode(await tryOpen(ep.privateKey, s))).toBe(paired.token);
    expect(JSON.stringify(seen)).not.toContain(paired.token.slice(-43));
  });

  it('burns the session after five wrong codes: the sixth, correct, claim is refused', async () => {
    const start = await desktop.start();
    const phone = PhoneSession.fromQr(start.url ?? '', phoneTransport());
    await phone.doHello();
    const good = await phone.prepareClaim('Pixel 8');
    const wrong = { ...good, code: start.code === '99999999' ? '99999998' : '99999999' };
    for (let i = 1; i <= 5; i += 1) {
      const res = await phoneTransport().post('/api/v1/pair/claim', wrong);
      expect(res, `attempt ${String(i)}`).toMatchObject({ status: 403, body: { error: { pairing: 'PAIRING_PROOF' } } });
    }
    const sixth = await phoneTransport().post('/api/v1/pair/claim', good);
    expect(sixth).toMatchObject({ status: 403, body: { error: { pairing: 'PAIRING_BURNED' } } });
    expect(await desktop.view(start.pid)).toMatchObject({ state: 'burned', attempts: 5 });
    const outcomes = audit.filter((a) => a.session === start.pid).map((a) => a.outcome);
    expect(outcomes).toEqual(['opened', 'claim_refused', 'claim_refused', 'claim_refused', 'claim_refused', 'burned', 'claim_refused']);
  });

  it('refuses an expired session', async () => {
    const start = await desktop.start();
    const phone = PhoneSession.fromQr(start.url ?? '', phoneTransport());
    await phone.doHello();
    await phone.prepareClaim('Pixel 8');
    skew.ms = 120_000;
    try {
      await expect(phone.sendClaim()).rejects.toMatchObject({ status: 403, body: { error: { pairing: 'PAIRING_EXPIRED' } } });
      expect(await desktop.view(start.pid)).toMatchObject({ state: 'expired' });
    } finally {
      skew.ms = 0;
    }
  });

  it('pairs by the typed code alone (fallback), with the same comparison code on both screens', async () => {
    const start = await desktop.start('code');
    expect(start.url).toBeNull();
    const paired = await pair(PhoneSession.fromCode(start.code, phoneTransport()), 'Old tablet', person);
    expect(credentials.get(paired.deviceId)).toMatchObject({ name: 'Old tablet', profile: 'phone' });
  });

  it('keeps start and confirm for the desktop: a phone token and no token are refused', async () => {
    const start = await desktop.start();
    const noAuth = await httpsJson(origin, tls.caCert, '/api/v1/pair/confirm', { method: 'POST', body: { pid: start.pid, accept: true } });
    expect(noAuth.status).toBe(401);
    for (const profile of ['phone', 'desktop'] as const) {
      const device = await credentials.issue('dev', `a ${profile} device`, { profile });
      const asDevice = await httpsJson(origin, tls.caCert, '/api/v1/pair/start', { method: 'POST', auth: device.token, body: {} });
      expect(asDevice.status, profile).toBe(403);
    }
  });
});
