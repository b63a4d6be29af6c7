import { describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import type { Caller } from './caller.js';
import type { ActionsService } from './routes/actions.js';
import { PAGE_CSP, WORKER_CSP, type Assets } from './routes/pages.js';

const agent: Caller = { kind: 'agent', id: 'ag_0123456789abcdef', name: 'claude-code' };
const phone: Caller = { kind: 'device', id: 'dev_0123456789abcdef', name: 'phone', profile: 'phone' };

function appWith(callers: Record<string, Caller>, options: { assets?: Assets; loopback?: boolean } = {}) {
  const calls: string[] = [];
  const verified: string[] = [];
  const actions: ActionsService = {
    submit: (action, waitMs, name) => {
      calls.push(`submit:${name}:${String(waitMs)}:${JSON.stringify(action)}`);
      return Promise.resolve({ status: 'pending' as const, executed: false, approval_id: 'ap_1' });
    },
    claudeCodeHook: (payload, name) => {
      calls.push(`hook:${name}:${JSON.stringify(payload)}`);
      return Promise.resolve({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'test' } });
    },
    taint: () => {
      calls.push('taint');
    },
    allowed: (agent) => Promise.resolve({ agent, capabilities: [], scopes: [], deny_always: [], programs: [], other_programs: 'deny', egress: { allow: [], other_hosts: 'deny' }, secrets: [] }),
    registerClient: (client, session) => {
      calls.push(`register:${JSON.stringify(client)}:${session}`);
    },
    continueAction: (id, _wait, name) => {
      calls.push(`continue:${id}:${name}`);
      return Promise.resolve(id === 'ap_1' ? { status: 'ran' as const, executed: true } : undefined);
    },
  };
  const app = createApp({
    gateStatus: () => ({ mode: 'read-only', policyDigest: 'sha256:ab' }),
    spkiSha256: 'PIN',
    tlsSign: () => Promise.resolve(new Uint8Array([1, 2, 3])),
    spki: new Uint8Array([9]),
    ca: { pem: '-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----\n', fingerprint256: 'AA:BB' },
    clientPeer: () => ({ port: 40000, connection: {} }),
    callers: {
      verify: (request) => {
        verified.push(request.authorization ?? '');
        return Promise.resolve(request.authorization === undefined ? undefined : callers[request.authorization]);
      },
    },
    actions,
    control: {
      pending: () => [],
      answer: () => Promise.reject(new Error('never reached')),
      halt: () => {
        calls.push('halt');
        return Promise.resolve();
      },
      resume: () => Promise.resolve(true),
      mode: () => 'normal',
    },
    devices: { publicKey: () => undefined, advanceCounter: () => false, list: () => [], revoke: () => false },
    desktop: { exchange: () => undefined },
    events: { subscribe: () => ({ replay: [], close: () => undefined }), active: () => true },
    pairing: {
      admit: () => Promise.resolve(true),
      flush: () => Promise.resolve(),
      start: () => Promise.reject(new Error('never reached')),
      view: () => undefined,
      confirm: () => Promise.reject(new Error('never reached')),
      hello: () => Promise.reject(new Error('never reached')),
      claim: () => Promise.reject(new Error('never reached')),
      result: () => Promise.reject(new Error('never reached')),
    },
    clientAddress: () => '127.0.0.1',
    isLoopback: () => options.loopback ?? true,
    now: () => Date.now(),
    desktopViews: {
      undoList: (limit) => {
        calls.push(`undo-list:${String(limit)}`);
        return { undo: [], total: 0 };
      },
      undo: (id) => {
        calls.push(`undo:${id}`);
        return Promise.resolve({ ok: true });
      },
      auditRecent: () => {
        calls.push('audit');
        return [];
      },
      auditVerify: () => ({ ok: true }),
      loginCode: () => {
        calls.push('login-code');
        return 'CODE';
      },
      remembered: () => [],
      forget: (id) => {
        calls.push(`forget:${id}`);
        return Promise.resolve(id === 'rr_1');
      },
      reloadPolicy: (by) => {
        calls.push(`reload:${by}`);
        return Promise.resolve({ ok: true });
      },
      secrets: {
        names: () => Promise.resolve(['api']),
        set: (name) => {
          calls.push(`secret.set ${name}`);
          return Promise.resolve({ ok: true, existed: false });
        },
        delete: (name) => {
          calls.push(`secret.delete ${name}`);
          return Promise.resolve({ ok: true, existed: true });
        },
      },
    },
    assets: options.assets,
    policyCandidates: {
      list: () => [],
      propose: (agent) => {
        calls.push(`propose:${agent}`);
        return Promise.resolve({ ok: false, code: 'INPUT_INVALID', message: 'test' });
      },
      activate: (id) => {
        calls.push(`activate:${id}`);
        return Promise.resolve({ ok: false, code: 'NOT_FOUND', message: 'test' });
      },
      discard: () => Promise.resolve(false),
    },
    terminals: {
      list: () => [],
      open: (_request, by) => {
        calls.push(`term.open:${by}`);
        return Promise.resolve({ ok: false, code: 'TERM_REFUSED', reason: 'test' });
      },
      screen: () => Promise.resolve({ ok: false, code: 'TERM_UNKNOWN', reason: 'test' }),
      close: () => Promise.resolve({ ok: false, code: 'TERM_UNKNOWN', reason: 'test' }),
    },
    push: {
      vapidPublicKey: 'BVAPID',
      extraOrigins: [],
      subscribed: () => false,
      subscribe: (id) => {
        calls.push(`push:${id}`);
      },
      unsubscribe: (id) => {
        calls.push(`unpush:${id}`);
      },
    },
  });
  return { app, calls, verified };
}

describe('createApp', () => {
  it('answers health without credentials, with the mode and the key pin', async () => {
    const { app } = appWith({});
    const res = await app.request('/api/v1/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, mode: 'read-only', spki_sha256: 'PIN', policy_digest: 'sha256:ab', ca_sha256: 'AA:BB', audit: { writable: true } });
    const ca = await app.request('/ca.crt');
    expect(ca.headers.get('x-oracle-ca-sha256')).toBe('AA:BB');
    expect(await ca.text()).toContain('BEGIN CERTIFICATE');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('tells a caller on the network only what a phone needs to pin: not the policy, its path or the audit state', async () => {
    const { app } = appWith({}, { loopback: false });
    const res = await app.request('/api/v1/health');
    expect(await res.json()).toEqual({ ok: true, mode: 'read-only', spki_sha256: 'PIN', ca_sha256: 'AA:BB' });
  });

  it('refuses every other route without a valid credential, and the handler never runs', async () => {
    const { app, calls } = appWith({ 'Bearer good': agent });
    for (const [method, path, auth] of [
      ['POST', '/api/v1/actions', undefined],
      ['POST', '/api/v1/actions', 'Bearer junk'],
      ['GET', '/api/v1/actions/ap_1', 'Bearer oracle_ag_0123456789abcdef_x'],
      ['POST', '/api/v1/halt', undefined],
      ['POST', '/api/v1/hooks/claude-code', undefined],
      ['POST', '/api/v1/hooks/claude-code', 'Bearer junk'],
    ] as const) {
      const res = await app.request(path, { method, headers: auth === undefined ? {} : { authorization: auth }, body: method === 'POST' ? '{}' : null });
      expect(res.status, path).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    }
    expect(calls).toEqual([]);
  });

  it('refuses HALT from an agent, and from a device without its signature', async () => {
    const { app, calls } = appWith({ 'Bearer good': agent, 'Bearer phone': phone });
    expect((await app.request('/api/v1/halt', { method: 'POST', headers: { authorization: 'Bearer good' }, body: '{}' })).status).toBe(403);
    const unsigned = await app.request('/api/v1/halt', { method: 'POST', headers: { authorization: 'Bearer phone' }, body: '{}' });
    expect(unsigned.status).toBe(403);
    expect(await unsigned.json()).toMatchObject({ error: { message: 'a device signature is required' } });
    expect((await app.request('/api/v1/resume', { method: 'POST', headers: { authorization: 'Bearer phone' }, body: '{}' })).status).toBe(403);
    expect(calls).toEqual([]);
  });

  it('lets agents propose policy changes and only the desktop activate them', async () => {
    const desktop: Caller = { kind: 'desktop', id: 'desktop', name: 'desktop', via: 'token' };
    const { app, calls } = appWith({ 'Bearer good': agent, 'Bearer phone': phone, 'Desktop d': desktop });
    const post = (path: string, auth: string) => app.request(`/api/v1/policy/${path}`, { method: 'POST', headers: { authorization: auth }, body: '{"policy":"x"}' });
    expect((await post('candidates', 'Bearer phone')).status).toBe(403);
    expect((await post('candidates', 'Desktop d')).status).toBe(403);
    expect((await post('candidates', 'Bearer good')).status).toBe(400);
    for (const auth of ['Bearer good', 'Bearer phone']) {
      expect((await post('candidates/pc_1/activate', auth)).status, auth).toBe(403);
      expect((await app.request('/api/v1/policy/candidates', { headers: { authorization: auth } })).status, auth).toBe(403);
    }
    expect((await post('candidates/pc_1/activate', 'Desktop d')).status).toBe(404);
    expect(calls).toEqual(['propose:claude-code', 'activate:pc_1']);
  });

  it('opens and shows the gate’s terminals to the desktop only, never to an agent or a phone', async () => {
    const desktop: Caller = { kind: 'desktop', id: 'desktop', name: 'desktop', via: 'token' };
    const { app, calls } = appWith({ 'Bearer good': agent, 'Bearer phone': phone, 'Desktop d': desktop });
    const open = (auth: string) => app.request('/api/v1/terms', { method: 'POST', headers: { authorization: auth }, body: '{"name":"t","program":"/bin/sh","args":[],"cwd":"/p"}' });
    for (const auth of ['Bearer good', 'Bearer phone']) {
      expect((await open(auth)).status, auth).toBe(403);
      expect((await app.request('/api/v1/terms/t', { headers: { authorization: auth } })).status, auth).toBe(403);
      expect((await app.request('/api/v1/terms/t', { method: 'DELETE', headers: { authorization: auth } })).status, auth).toBe(403);
    }
    expect(calls).toEqual([]);
    const refused = await open('Desktop d');
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: { code: 'TERM_REFUSED', message: 'test' } });
    expect((await app.request('/api/v1/terms/t', { headers: { authorization: 'Desktop d' } })).status).toBe(404);
    expect(calls).toEqual(['term.open:desktop']);
  });

  it('changes the secret store for the CLI’s local token only: never a browser session, an agent or a phone', async () => {
    const cli: Caller = { kind: 'desktop', id: 'desktop', name: 'desktop', via: 'token' };
    const browser: Caller = { kind: 'desktop', id: 'desktop', name: 'desktop', via: 'cookie' };
    const { app, calls } = appWith({ 'Bearer good': agent, 'Bearer phone': phone, 'Desktop cli': cli, 'Desktop browser': browser });
    const put = (auth: string, body = '{"value":"v"}') => app.request('/api/v1/desk/secrets/api', { method: 'PUT', headers: { authorization: auth, 'content-type': 'application/json' }, body });
    for (const auth of ['Bearer good', 'Bearer phone', 'Desktop browser']) {
      expect((await app.request('/api/v1/desk/secrets', { headers: { authorization: auth } })).status, auth).toBe(403);
      expect((await put(auth)).status, auth).toBe(403);
      expect((await app.request('/api/v1/desk/secrets/api', { method: 'DELETE', headers: { authorization: auth } })).status, auth).toBe(403);
    }
    expect(calls).toEqual([]);
    expect(await (await app.request('/api/v1/desk/secrets', { headers: { authorization: 'Desktop cli' } })).json()).toEqual({ names: ['api'] });
    expect((await put('Desktop cli', '{"value":""}')).status).toBe(400);
    expect((await put('Desktop cli')).status).toBe(200);
    expect((await app.request('/api/v1/desk/secrets/api', { method: 'DELETE', headers: { authorization: 'Desktop cli' } })).status).toBe(200);
    expect(calls).toEqual(['secret.set api', 'secret.delete api']);
  });

  it('names who reloaded the policy by the credential: `cli` for the local token, `desktop` for a browser session, never what the request says', async () => {
    const cli: Caller = { kind: 'desktop', id: 'desktop', name: 'desktop', via: 'token' };
    const browser: Caller = { kind: 'desktop', id: 'desktop', name: 'desktop', via: 'cookie' };
    const { app, calls } = appWith({ 'Bearer good': agent, 'Bearer phone': phone, 'Desktop cli': cli, 'Desktop browser': browser });
    const reload = (auth: string, body = '{}') => app.request('/api/v1/desk/policy/reload', { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body });
    for (const auth of ['Bearer good', 'Bearer phone']) expect((await reload(auth)).status, auth).toBe(403);
    expect(calls).toEqual([]);
    expect((await reload('Desktop cli')).status).toBe(200);
    expect((await reload('Desktop browser', '{"by":"cli","actor":"cli"}')).status).toBe(200);
    expect(calls).toEqual(['reload:cli', 'reload:desktop']);
  });

  it('gives push subscriptions to paired devices only, and a device’s only with its signature', async () => {
    const { app, calls } = appWith({ 'Bearer good': agent, 'Bearer phone': phone });
    expect((await app.request('/api/v1/push', { headers: { authorization: 'Bearer good' } })).status).toBe(403);
    const key = await app.request('/api/v1/push', { headers: { authorization: 'Bearer phone' } });
    expect(await key.json()).toEqual({ vapid_public_key: 'BVAPID', subscribed: false });
    const subscription = JSON.stringify({ endpoint: 'https://fcm.googleapis.com/fcm/send/x', keys: { p256dh: `B${'a'.repeat(86)}`, auth: 'a'.repeat(22) } });
    expect((await app.request('/api/v1/push/subscribe', { method: 'POST', headers: { authorization: 'Bearer good' }, body: subscription })).status).toBe(403);
    const unsigned = await app.request('/api/v1/push/subscribe', { method: 'POST', headers: { authorization: 'Bearer phone' }, body: subscription });
    expect(await unsigned.json()).toMatchObject({ error: { message: 'a device signature is required' } });
    expect((await app.request('/api/v1/push/unsubscribe', { method: 'POST', headers: { authorization: 'Bearer phone' }, body: '{}' })).status).toBe(403);
    expect(calls).toEqual([]);
  });

  it('submits for an agent with its own name as principal (a claimed agent field is dropped), 202 while pending', async () => {
    const { app, calls } = appWith({ 'Bearer good': agent, 'Bearer phone': phone });
    const res = await app.request('/api/v1/actions?wait=2', { method: 'POST', headers: { authorization: 'Bearer good' }, body: JSON.stringify({ tool: 'fs.read', args: { path: '/x' }, agent: 'root' }) });
    expect(res.status).toBe(202);
    expect(calls).toEqual(['submit:claude-code:2000:{"tool":"fs.read","args":{"path":"/x"}}']);
    expect((await app.request('/api/v1/actions/ap_1?wait=1', { headers: { authorization: 'Bearer good' } })).status).toBe(200);
    expect((await app.request('/api/v1/actions/ap_2', { headers: { authorization: 'Bearer good' } })).status).toBe(404);
    const fromPhone = await app.request('/api/v1/actions', { method: 'POST', headers: { authorization: 'Bearer phone' }, body: '{}' });
    expect(fromPhone.status).toBe(403);
    const bad = await app.request('/api/v1/actions?wait=soon', { method: 'POST', headers: { authorization: 'Bearer good' }, body: '{}' });
    expect(bad.status).toBe(400);
  });

  it('answers Claude Code’s hook for an agent only, as a hook answer even for a malformed body', async () => {
    const { app, calls } = appWith({ 'Bearer good': agent, 'Bearer phone': phone });
    const post = (auth: string, body: string) => app.request('/api/v1/hooks/claude-code', { method: 'POST', headers: { authorization: auth }, body });
    expect((await post('Bearer phone', '{}')).status).toBe(403);
    const res = await post('Bearer good', '{"tool_name":"Read"}');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
    expect((await post('Bearer good', 'not json')).status).toBe(200);
    expect(calls).toEqual(['hook:claude-code:{"tool_name":"Read"}', 'hook:claude-code:undefined']);
  });

  it('keeps undo and the audit log for the desktop: agents and phones are refused before the handler', async () => {
    const desktop: Caller = { kind: 'desktop', id: 'desktop', name: 'desktop', via: 'token' };
    const { app, calls } = appWith({ 'Bearer good': agent, 'Bearer phone': phone, 'Desktop d': desktop });
    for (const auth of ['Bearer good', 'Bearer phone']) {
      expect((await app.request('/api/v1/desk/undo', { headers: { authorization: auth } })).status, auth).toBe(403);
      expect((await app.request('/api/v1/desk/undo/un_1', { method: 'POST', headers: { authorization: auth }, body: '{}' })).status, auth).toBe(403);
      expect((await app.request('/api/v1/desk/audit', { headers: { authorization: auth } })).status, auth).toBe(403);
    }
    expect(calls).toEqual([]);
    expect((await app.request('/api/v1/desk/audit?limit=0', { headers: { authorization: 'Desktop d' } })).status).toBe(400);
    expect((await app.request('/api/v1/desk/audit?limit=5', { headers: { authorization: 'Desktop d' } })).status).toBe(200);
    expect((await app.request('/api/v1/desk/undo/un_1', { method: 'POST', headers: { authorization: 'Desktop d' }, body: '{}' })).status).toBe(200);
    // The screen's list is the newest 50 unless asked (the CLI asks for all); a bad limit is refused.
    expect((await app.request('/api/v1/desk/undo', { headers: { authorization: 'Desktop d' } })).status).toBe(200);
    expect((await app.request('/api/v1/desk/undo?limit=500', { headers: { authorization: 'Desktop d' } })).status).toBe(200);
    for (const bad of ['0', '1.5', 'x', '100001']) expect((await app.request(`/api/v1/desk/undo?limit=${bad}`, { headers: { authorization: 'Desktop d' } })).status, bad).toBe(400);
    expect(calls).toEqual(['audit', 'undo:un_1', 'undo-list:50', 'undo-list:500']);
  });

  it('serves the built pages with the strict CSP, the worker with its own, and nothing else', async () => {
    const files = new Map([
      ['/index.html', { body: new TextEncoder().encode('<p>phone</p>'), type: 'text/html; charset=utf-8' }],
      ['/desktop.html', { body: new TextEncoder().encode('<p>desk</p>'), type: 'text/html; charset=utf-8' }],
      ['/sw.js', { body: new TextEncoder().encode('//sw'), type: 'text/javascript' }],
      ['/assets/a-1.js', { body: new TextEncoder().encode('//a'), type: 'text/javascript' }],
    ]);
    const { app } = appWith({}, { assets: { get: (path) => files.get(path) } });
    for (const [path, text] of [['/', 'phone'], ['/pair', 'phone'], ['/desktop', 'desk']] as const) {
      const res = await app.request(path);
      expect(await res.text(), path).toContain(text);
      expect(res.headers.get('content-security-policy'), path).toBe(PAGE_CSP);
      expect(res.headers.get('cache-control'), path).toBe('no-cache');
    }
    expect(PAGE_CSP).not.toMatch(/unsafe-(inline|eval)/u);
    expect(PAGE_CSP).toContain("script-src 'self'");
    expect((await app.request('/sw.js')).headers.get('content-security-policy')).toBe(WORKER_CSP);
    expect((await app.request('/assets/a-1.js')).headers.get('cache-control')).toContain('immutable');
    expect((await app.request('/assets/../data/secrets.json')).status).toBe(404);
    const api = await app.request('/api/v1/nope');
    expect(api.status).toBe(401);
    const unbuilt = await appWith({}).app.request('/');
    expect(unbuilt.status).toBe(404);
    expect(await unbuilt.json()).toMatchObject({ error: { message: 'the PWA is not built here: run `npm run build`' } });
  });

  it('answers a used login link with a page a person can act on, and a script with JSON', async () => {
    const { app } = appWith({});
    const page = await app.request('/login?code=used', { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.status).toBe(401);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('oracle desktop');
    const script = await app.request('/login?code=used');
    expect(await script.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
  });

  it('serves the precompressed copy the browser accepts, brotli first, and the plain bytes otherwise', async () => {
    const { gzipSync, brotliCompressSync, gunzipSync, brotliDecompressSync } = await import('node:zlib');
    const text = 'const a = 1;'.repeat(200);
    const body = new TextEncoder().encode(text);
    const asset = { body, type: 'text/javascript', br: new Uint8Array(brotliCompressSync(body)), gzip: new Uint8Array(gzipSync(body)) };
    const { app } = appWith({}, { assets: { get: (path) => (path === '/assets/a-1.js' ? asset : undefined) } });
    const get = (accept?: string) => app.request('/assets/a-1.js', { headers: accept === undefined ? {} : { 'accept-encoding': accept } });
    const br = await get('gzip, deflate, br');
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toBe('accept-encoding');
    expect(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).toString()).toBe(text);
    const gz = await get('gzip, br;q=0');
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe(text);
    const plain = await get();
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(text);
    expect((await get('identity')).headers.get('content-encoding')).toBeNull();
  });
});

describe('body limits (before any other work)', () => {
  const big = (bytes: number) => 'x'.repeat(bytes);
  it.each([
    ['POST', '/api/v1/sessions/s1/provenance', 64 * 1024],
    ['POST', '/api/v1/halt', 16 * 1024],
    ['POST', '/api/v1/approvals/ap_1/approve', 16 * 1024],
    ['POST', '/api/v1/resume', 16 * 1024],
    ['POST', '/api/v1/devices/dev_1/revoke', 16 * 1024],
    ['POST', '/api/v1/desk/undo/un_1', 16 * 1024],
    ['POST', '/api/v1/pair/start', 4 * 1024],
    ['POST', '/api/v1/actions', 1024 * 1024],
  ])('%s %s refuses a body over its limit unread, before the credential is even checked', async (method, path, limit) => {
    const { app, calls, verified } = appWith({ 'Bearer a': agent, 'Bearer p': phone });
    const res = await app.request(path, { method, headers: { authorization: 'Bearer a', 'content-type': 'application/json', 'content-length': String(limit + 1) }, body: big(limit + 1) });
    expect(res.status).toBe(413);
    expect(calls).toEqual([]);
    // The route-level limit of /actions runs after the credential; every other one before it.
    if (path !== '/api/v1/actions') expect(verified).toEqual([]);
  });

  it('counts a body sent without a length, and cuts it at the limit', async () => {
    const { app, calls } = appWith({ 'Bearer a': agent });
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 100; i++) controller.enqueue(new Uint8Array(1024).fill(120));
        controller.close();
      },
    });
    const res = await app.request('/api/v1/sessions/s1/provenance', { method: 'POST', headers: { authorization: 'Bearer a' }, body: chunks, duplex: 'half' });
    expect(res.status).toBe(413);
    expect(calls).not.toContain('taint');
  });

  it('lets a body within the limit through', async () => {
    const { app, calls } = appWith({ 'Bearer a': agent });
    const res = await app.request('/api/v1/sessions/s1/provenance', { method: 'POST', headers: { authorization: 'Bearer a', 'content-type': 'application/json' }, body: JSON.stringify({ read: [{ kind: 'external', source: 'x' }] }) });
    expect(res.status).toBe(200);
    expect(calls).toContain('taint');
  });
});

describe('malformed bodies get a clear 400, never a 500', () => {
  const desk: Caller = { kind: 'desktop', id: 'desktop', name: 'desktop', via: 'token' };
  it.each(['null', '[]', '123', '"x"'])('provenance with %s', async (body) => {
    const { app, calls } = appWith({ 'Bearer a': agent });
    const res = await app.request('/api/v1/sessions/s1/provenance', { method: 'POST', headers: { authorization: 'Bearer a', 'content-type': 'application/json' }, body });
    expect(res.status).toBe(400);
    expect(calls).toEqual([]);
  });

  it.each(['null', '[]', '123'])('pairing start with %s', async (body) => {
    const { app } = appWith({ 'Desktop d': desk });
    const res = await app.request('/api/v1/pair/start', { method: 'POST', headers: { authorization: 'Desktop d', 'content-type': 'application/json' }, body });
    // The stub's start() rejects: a 201 or a 500 would mean the body got through.
    expect(res.status).toBe(400);
  });
});
