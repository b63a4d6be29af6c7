import type { IncomingHttpHeaders } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { launchChromium } from '../fixtures/browser.js';
import { call } from '../fixtures/https-client.js';
import { pairInBrowser } from '../fixtures/pair-in-browser.js';
import { browserKeys, checkVapid, open, startPushService, type BrowserKeys, type PushService } from '../fixtures/push-service.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * Web Push end to end (issue 15), honest about the one part that cannot exist here: the browser
 * vendor's push service. The gate's own push code (web-push: VAPID, aes128gcm) sends to a local
 * RFC 8030 stand-in; the test decrypts what arrived with its own RFC 8291 code and checks that it
 * carries no action details; then it hands those bytes to the page's real service worker over the
 * Chrome DevTools Protocol (`ServiceWorker.deliverPushMessage`), which shows the notification; a
 * click on it opens that card. In the page only `PushManager.subscribe` is stood in for (it would
 * ask the vendor's service), with the keys the test holds as the browser's.
 */
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/** The page's PushManager, as a vendor's would answer, holding the test's keys (JSON-embedded). */
const stubPushManager = (endpoint: string, keys: BrowserKeys): string => `(() => {
  const state = { sub: null };
  const make = (options) => ({
    endpoint: ${JSON.stringify(endpoint)},
    expirationTime: null,
    options: { userVisibleOnly: true, applicationServerKey: options.applicationServerKey.buffer ? options.applicationServerKey.buffer.slice(0) : options.applicationServerKey },
    toJSON() { return { endpoint: this.endpoint, expirationTime: null, keys: { p256dh: ${JSON.stringify(keys.p256dh)}, auth: ${JSON.stringify(keys.authText)} } }; },
    unsubscribe() { state.sub = null; return Promise.resolve(true); },
  });
  PushManager.prototype.subscribe = function (options) { state.sub = make(options); window.__subscribed = (window.__subscribed || 0) + 1; return Promise.resolve(state.sub); };
  PushManager.prototype.getSubscription = function () { return Promise.resolve(state.sub); };
})();`;

describe.skipIf(process.env['ORACLE_SKIP_BROWSER'] === '1')('Web Push to a paired phone', () => {
  let tree: TempTree;
  let service: PushService;
  let running: Running;
  let browser: Browser;
  let phone: BrowserContext;
  let ph: Page;
  let cdp: CDPSession;
  let ca = '';
  let agentToken = '';
  let deviceId = '';
  const keys = browserKeys();
  const errors: string[] = [];

  const desktopCall = (method: string, path: string, body?: unknown) =>
    call(`${running.url}${path}`, { ca, method, headers: { authorization: `Desktop ${running.desktop.localToken}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  /** A delete in the project: T2, so it waits for a person. */
  const remove = (name: string) =>
    call(`${running.url}/api/v1/actions?wait=30`, { ca, method: 'POST', headers: { authorization: `Bearer ${agentToken}` }, body: JSON.stringify({ tool: 'fs.delete', args: { path: join(tree.root, 'projects', 'app', name) } }) });
  const pendingIds = () =>
    running.runtime.desk
      .list()
      .filter((a) => a.state === 'pending')
      .sort((a, b) => (a.requested_at < b.requested_at ? -1 : 1))
      .map((a) => a.approval_id);
  /** The next message the stand-in received after `seen`, decrypted. */
  const nextMessage = async (seen: number): Promise<{ text: string; headers: IncomingHttpHeaders; path: string }> => {
    await expect.poll(() => service.received.length, { timeout: 15_000 }).toBeGreaterThan(seen);
    await running.push.idle();
    const got = service.received[service.received.length - 1];
    if (got === undefined) throw new Error('nothing arrived');
    return { text: open(got.body, keys), headers: got.headers, path: got.path };
  };
  const subscribedDevices = (): string[] => Object.keys((JSON.parse(readFileSync(join(running.runtime.gate.home, 'data', 'push.json'), 'utf8')) as { devices: object }).devices);
  const registrationId = async (): Promise<string> => {
    const found: string[] = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e: { registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] }) => {
      for (const r of e.registrations) if (!r.isDeleted && r.scopeURL === `${running.url}/`) found.push(r.registrationId);
    });
    await cdp.send('ServiceWorker.enable');
    await expect.poll(() => found.length, { timeout: 10_000 }).toBeGreaterThan(0);
    return found.at(-1) ?? '';
  };

  beforeAll(async () => {
    tree = tempTree('oracle-push-');
    const app = tree.dir('projects/app');
    for (const name of ['a', 'b', 'c']) writeFileSync(join(app, `secret-launch-plan-${name}.md`), 'plans\n');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.delete] }\n`);
    service = await startPushService();
    running = await startServer({ home: tree.dir('home'), policy, port: 0, push: { origins: [service.origin], ca: service.ca } });
    ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    agentToken = (await running.credentials.issue('ag', 'claude-code')).token;
    browser = await launchChromium([running.spkiSha256]);
    phone = await browser.newContext(PHONE);
    await phone.grantPermissions(['notifications'], { origin: running.url });
    await phone.addInitScript(stubPushManager(`${service.origin}/push/sub-1`, keys));
    ph = await phone.newPage();
    ph.on('pageerror', (e) => errors.push(e.message));
    cdp = await phone.newCDPSession(ph);
  });

  afterAll(async () => {
    await browser.close();
    await running.close();
    await service.close();
    tree.dispose();
  });

  it('pairs, and the phone offers notifications; turned on, its subscription is bound to the device', async () => {
    const desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const desk = await desktop.newPage();
    await pairInBrowser(desk, ph, running.loginUrl, 'Pixel push');
    await desktop.close();
    deviceId = running.credentials.list('dev')[0]?.id ?? '';
    expect(deviceId).toMatch(/^dev_/u);

    // Off until the person turns it on, and it says where messages go.
    const offer = ph.locator('oracle-notify section');
    await expect.poll(() => offer.textContent(), { timeout: 20_000 }).toContain('phone vendor’s push service');
    expect(subscribedDevices()).toEqual([]);
    await ph.locator('button.push-on').click();
    await ph.locator('text=Notifications: on.').waitFor({ timeout: 10_000 });
    const stored = JSON.parse(readFileSync(join(running.runtime.gate.home, 'data', 'push.json'), 'utf8')) as { devices: Record<string, { endpoint: string; p256dh: string }> };
    expect(Object.keys(stored.devices)).toEqual([deviceId]);
    expect(stored.devices[deviceId]).toMatchObject({ endpoint: `${service.origin}/push/sub-1`, p256dh: keys.p256dh });
    // The subscription was made with the gate's VAPID key.
    expect(await ph.evaluate('navigator.serviceWorker.ready.then((r) => r.pushManager.getSubscription()).then((s) => btoa(String.fromCharCode(...new Uint8Array(s.options.applicationServerKey))))')).toBe(Buffer.from(running.push.vapidPublicKey, 'base64url').toString('base64'));
  });

  it('pushes "N requests waiting" and the tier for a new approval, nothing of the action, and the worker shows it', async () => {
    const before = service.received.length;
    const first = remove('secret-launch-plan-a.md');
    await expect.poll(() => pendingIds().length, { timeout: 10_000 }).toBe(1);
    await nextMessage(before);
    const second = remove('secret-launch-plan-b.md');
    await expect.poll(() => pendingIds().length, { timeout: 10_000 }).toBe(2);
    const [, secondId] = pendingIds();
    await expect.poll(async () => (await nextMessage(before)).text, { timeout: 15_000 }).toContain(String(secondId));
    const message = await nextMessage(before);
    expect(JSON.parse(message.text)).toEqual({ v: 1, kind: 'approval', count: 2, tier: 'T2', approval_id: secondId });
    for (const detail of ['launch-plan', 'fs.delete', 'delete', 'claude-code', tree.root]) expect(message.text).not.toContain(detail);
    // RFC 8030 delivery: encrypted, short-lived, urgent, collapsible; RFC 8292: signed for this service.
    expect(message.path).toBe('/push/sub-1');
    expect(message.headers['content-encoding']).toBe('aes128gcm');
    expect(Number(message.headers['ttl'])).toBeGreaterThan(0);
    expect(Number(message.headers['ttl'])).toBeLessThanOrEqual(300);
    expect(message.headers['urgency']).toBe('high');
    expect(message.headers['topic']).toBe('approvals');
    expect(checkVapid(message.headers, service.origin, running.push.vapidPublicKey)).toMatchObject({ sub: expect.stringMatching(/^(mailto|https):/u) as string });

    // The same bytes, delivered to the page's real service worker.
    const origin = `${running.url}/`;
    const notifications = 'navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((ns) => ns.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data })))';
    // Delivered once the worker is active; a browser under load may drop a push that arrives while
    // its worker starts, and a push service delivers again, so this does too (a few times at most).
    await ph.evaluate("navigator.serviceWorker.ready.then((r) => new Promise((ok) => { const w = r.active; if (w.state === 'activated') ok(); else w.addEventListener('statechange', () => { if (w.state === 'activated') ok(); }); }))");
    const registration = await registrationId();
    for (let attempt = 0; attempt < 5 && (await ph.evaluate<unknown[]>(notifications)).length === 0; attempt++) {
      await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId: registration, data: message.text });
      for (let i = 0; i < 20 && (await ph.evaluate<unknown[]>(notifications)).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    }
    await expect.poll(() => ph.evaluate(notifications), { timeout: 10_000 }).toEqual([{ title: '2 requests waiting', body: 'T2 · needs you. Open ORACLE to decide.', tag: 'oracle-requests', data: { approval_id: secondId } }]);
    // The open app shows the oldest first; the count is in the title.
    await ph.locator('.position', { hasText: '1 of 2' }).waitFor({ timeout: 10_000 });
    expect(await ph.title()).toBe('(2) ORACLE');

    // Tapping the notification opens the card it is about.
    const [worker] = phone.serviceWorkers();
    if (worker === undefined) throw new Error('no service worker');
    await worker.evaluate(`self.registration.getNotifications().then(([n]) => { self.dispatchEvent(new NotificationEvent('notificationclick', { notification: n })); })`);
    await ph.locator('.position', { hasText: '2 of 2' }).waitFor({ timeout: 10_000 });
    await ph.locator(`#h-${String(secondId)}`).waitFor({ timeout: 10_000 });
    expect(await ph.evaluate(notifications)).toEqual([]);

    // Answered from the desktop, both agents are told, and the phone's notification follows:
    // the count left, quietly, then gone. Each answer's message goes to the real worker.
    const deliver = async (text: string, until: (shown: { title: string }[]) => boolean): Promise<void> => {
      for (let attempt = 0; attempt < 5 && !until(await ph.evaluate<{ title: string }[]>(notifications)); attempt++) {
        await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId: registration, data: text });
        for (let i = 0; i < 20 && !until(await ph.evaluate<{ title: string }[]>(notifications)); i++) await new Promise((r) => setTimeout(r, 100));
      }
    };
    await deliver(message.text, (shown) => shown.length === 1);
    const answer = async (id: string | undefined) => {
      const seen = service.received.length;
      const card = running.runtime.desk.list().find((a) => a.approval_id === id);
      await desktopCall('POST', `/api/v1/approvals/${String(id)}/deny`, { nonce: card?.nonce, arg_hash: card?.arg_hash });
      return nextMessage(seen);
    };
    const [firstId] = pendingIds();
    const one = await answer(firstId);
    expect(JSON.parse(one.text)).toEqual({ v: 1, kind: 'settled', count: 1, tier: null, approval_id: null });
    expect(one.headers['topic']).toBe('approvals');
    await deliver(one.text, (shown) => shown[0]?.title === '1 request waiting');
    expect(await ph.evaluate(notifications)).toEqual([{ title: '1 request waiting', body: 'Open ORACLE to decide.', tag: 'oracle-requests', data: { approval_id: null } }]);
    const none = await answer(secondId);
    expect(JSON.parse(none.text)).toMatchObject({ kind: 'settled', count: 0 });
    await deliver(none.text, (shown) => shown.length === 0);
    expect(await ph.evaluate(notifications)).toEqual([]);
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect(errors).toEqual([]);
  });

  it('pushes a HALT, and nothing more once the device is revoked', async () => {
    const before = service.received.length;
    expect((await desktopCall('POST', '/api/v1/halt', { reason: 'test' })).status).toBe(200);
    const halt = await nextMessage(before);
    expect(JSON.parse(halt.text)).toEqual({ v: 1, kind: 'halt', count: 0, tier: null, approval_id: null });
    expect(halt.headers['topic']).toBe('halt');
    expect((await desktopCall('POST', '/api/v1/resume', {})).status).toBe(200);

    expect((await desktopCall('POST', `/api/v1/devices/${deviceId}/revoke`, {})).status).toBe(200);
    expect(subscribedDevices()).toEqual([]);
    const after = service.received.length;
    const pending = remove('secret-launch-plan-c.md');
    await expect.poll(() => pendingIds().length, { timeout: 10_000 }).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    await running.push.idle();
    expect(service.received.length).toBe(after);
    const [id] = pendingIds();
    const card = running.runtime.desk.list().find((a) => a.approval_id === id);
    await desktopCall('POST', `/api/v1/approvals/${String(id)}/deny`, { nonce: card?.nonce, arg_hash: card?.arg_hash });
    await pending;
  });
});
