import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { REPO } from '../arch/source-files.js';
import { CHROMIUM, launchChromium } from '../fixtures/browser.js';
import { call } from '../fixtures/https-client.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * The PWA and the desktop screen in a real browser (SPEC §9, §10; issue 6): Debian's Chromium
 * driven by playwright-core against `oracle serve`'s own server and the built PWA. A desktop
 * context and a mobile-emulated phone pair through the real QR URL; the phone approves T2 while
 * an agent waits; T3 is desktop-only with the typed phrase; HALT from the phone kills a running
 * exec and the desktop resumes; a changed server key is refused; the service worker registers
 * only where the certificate is trusted. Screenshots of every screen go to test-results/.
 */
const SHOTS = join(REPO, 'test-results', 'screenshots');
const PHONE = { viewport: { width: 360, height: 780 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
const DESKTOP = { viewport: { width: 1280, height: 900 } };

// A missing browser fails the suite with the fix in the message; skipping is an explicit choice.
describe.skipIf(process.env['ORACLE_SKIP_BROWSER'] === '1')('the PWA in Chromium', () => {
  let tree: TempTree;
  let running: Running;
  let other: { home: string; spki: string };
  let browser: Browser;
  let desktop: BrowserContext;
  let phone: BrowserContext;
  let desk: Page;
  let ph: Page;
  let ca = '';
  let agentToken = '';
  let port = 0;
  let policy = '';
  const errors: string[] = [];

  const shot = async (page: Page, name: string) => {
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };
  const watch = (page: Page, who: string) => {
    page.on('pageerror', (e) => errors.push(`${who}: ${e.message}`));
    page.on('console', (m) => {
      // CSP and Trusted Types violations are console errors: none is acceptable.
      if (m.type() === 'error' && !/Failed to load resource/u.test(m.text())) errors.push(`${who}: ${m.text()}`);
    });
  };
  const agent = (tool: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    call(`${running.url}/api/v1/actions?wait=60`, { ca, method: 'POST', headers: { authorization: `Bearer ${agentToken}` }, body: JSON.stringify({ tool, args, ...extra }) });

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`the PWA tests need Debian's Chromium at ${CHROMIUM}: apt-get install -y chromium (or set ORACLE_SKIP_BROWSER=1 to skip them, knowingly)`);
    mkdirSync(SHOTS, { recursive: true });
    tree = tempTree('oracle-pwa-');
    tree.dir('projects/app');
    policy = join(tree.root, 'policy.yaml');
    writeFileSync(
      policy,
      `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms:\n  sleep: { allow_args_matching: ["*"] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write, fs.delete, proc.spawn] }\n`,
    );
    // A second install, made first, so the browser can reach it later on the same port: its key differs.
    const second = await startServer({ home: tree.dir('home-b'), policy, port: 0 });
    other = { home: second.runtime.gate.home, spki: second.spkiSha256 };
    await second.close();
    running = await startServer({ home: tree.dir('home-a'), policy, port: 0 });
    port = running.listening.port;
    ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    agentToken = (await running.credentials.issue('ag', 'claude-code')).token;
    browser = await launchChromium([running.spkiSha256, other.spki]);
    desktop = await browser.newContext(DESKTOP);
    phone = await browser.newContext(PHONE);
    desk = await desktop.newPage();
    ph = await phone.newPage();
    watch(desk, 'desktop');
    watch(ph, 'phone');
  });

  afterAll(async () => {
    await browser.close();
    await running.close();
    tree.dispose();
  });
  it('serves the pages with a strict CSP and the CA for the phone', async () => {
    expect((await call(`${running.url}/ca.crt`, { ca })).body['raw']).toContain('BEGIN CERTIFICATE');
    const page = await call(`${running.url}/`, { ca });
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
    expect(String(page.headers['content-security-policy'])).not.toContain('unsafe-inline');
    // The built JavaScript goes out precompressed, in the encoding the browser accepts.
    const script = /src="(\/assets\/index-[^"]+\.js)"/u.exec(String(page.body['raw']))?.[1] ?? '';
    expect(script).not.toBe('');
    const plain = await call(`${running.url}${script}`, { ca });
    const br = await call(`${running.url}${script}`, { ca, headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(Number(br.headers['content-length'])).toBeLessThan(Number(plain.headers['content-length']) / 2);
  });

  it('pairs a mobile phone through the real QR URL, the desktop confirming the comparison code', async () => {
    await desk.goto(running.loginUrl);
    expect(new URL(desk.url()).pathname).toBe('/desktop');
    await desk.locator('text=Nothing is waiting.').waitFor();
    await shot(desk, 'desktop-home');
    await desk.locator('button.start-qr').click();
    const url = (await desk.locator('pre.pair-url').textContent()) ?? '';
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/pair#v=1&p=pp_/u);
    // Without --lan the QR points at loopback, and the desktop says a phone cannot reach it.
    await desk.locator('.loopback', { hasText: 'oracle serve --lan' }).waitFor();
    await expect.poll(() => desk.locator('img.qr').getAttribute('src')).toMatch(/^data:image\/svg\+xml/u);
    await shot(desk, 'desktop-pairing-qr');

    await ph.goto(url);
    // The secret leaves the address bar at once.
    expect(new URL(ph.url()).hash).toBe('');
    await shot(ph, 'phone-pair');
    await ph.locator('#name').fill('Pixel test');
    await ph.locator('button[type=submit]').click();
    const shown = (await ph.locator('.comparison strong').textContent({ timeout: 20_000 })) ?? '';
    expect(shown).toMatch(/^\d{6}$/u);
    await shot(ph, 'phone-compare');
    await expect.poll(() => desk.locator('.code.comparison').textContent(), { timeout: 10_000 }).toBe(shown);
    await expect.poll(() => desk.locator('#pair-q').textContent()).toContain('Pixel test');
    await shot(desk, 'desktop-pairing-confirm');
    await desk.locator('button.confirm-pair').click();
    await ph.locator('text=Waiting for you (0)').waitFor({ timeout: 20_000 });
    await shot(ph, 'phone-home');
    const devices = running.credentials.list('dev');
    expect(devices.map((d) => d.name)).toEqual(['Pixel test']);
    // The device key stayed in the browser, non-extractable.
    // (Evaluated in the page as text: this file is type-checked without the DOM library.)
    const stored = `new Promise((resolve) => { const req = indexedDB.open('oracle'); req.onsuccess = () => { const get = req.result.transaction('device').objectStore('device').get('this'); get.onsuccess = () => resolve({ extractable: get.result.key.extractable, type: get.result.key.type }); }; })`;
    expect(await ph.evaluate(stored)).toEqual({ extractable: false, type: 'private' });
  });

  it('the service worker registers where the certificate is trusted', async () => {
    await expect.poll(() => ph.locator('#sw-status').textContent(), { timeout: 20_000 }).toContain('Offline shell: on');
    const state = await ph.evaluate('navigator.serviceWorker.ready.then((r) => r.active && r.active.state)');
    expect(['activating', 'activated']).toContain(state);
    // Installable: Chromium's own check of the manifest, icons and worker finds nothing missing
    // but the one thing a test browser is (playwright's contexts are incognito, never installable).
    const cdp = await phone.newCDPSession(ph);
    const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: { errorId: string }[] };
    expect(installabilityErrors.map((e) => e.errorId)).toEqual(['in-incognito']);
    // The shell really is offline: with the network gone the app still starts, and says the gate is unreachable.
    await phone.setOffline(true);
    try {
      await ph.goto(`${running.url}/`);
      await ph.locator('text=Cannot check the gate').waitFor({ timeout: 10_000 });
      await shot(ph, 'phone-offline');
    } finally {
      await phone.setOffline(false);
    }
    await ph.goto(`${running.url}/`);
    await ph.locator('text=Waiting for you (0)').waitFor({ timeout: 20_000 });
  });

  it('the phone approves a T2 action and the waiting agent proceeds', async () => {
    const target = join(tree.root, 'projects', 'app', 'old.txt');
    writeFileSync(target, 'x');
    const waiting = agent('fs.delete', { path: target });
    const card = ph.locator('oracle-card', { hasText: 'fs.delete' });
    await card.locator('button.approve').waitFor({ timeout: 20_000 });
    expect(await card.locator('article').textContent()).toContain(target);
    await shot(ph, 'phone-card-t2');
    await card.locator('button.approve').click();
    const reply = await waiting;
    expect(reply.body).toMatchObject({ executed: true });
    expect(existsSync(target)).toBe(false);
    await ph.locator('text=Waiting for you (0)').waitFor();
    // In words: who approved it, and that it ran.
    await ph.locator('oracle-recent li', { hasText: 'delete app/old.txt' }).locator('text=approved by Pixel test · ran').waitFor();
  });

  it('the phone cannot approve T3; the desktop can, with the typed phrase', async () => {
    const target = join(tree.root, 'projects', 'app', 'tainted.txt');
    writeFileSync(target, 'x');
    // The session read external content: the delete is bumped from T2 to T3.
    const waiting = agent('fs.delete', { path: target }, { session: 's-taint', provenance: [{ kind: 'external', source: 'https://evil.example/instructions' }] });
    const phoneCard = ph.locator('oracle-card', { hasText: 'tainted.txt' });
    await phoneCard.locator('.risk.T3', { hasText: 'Desktop only' }).waitFor({ timeout: 20_000 });
    // The phone may say no (or no and HALT), never yes.
    expect(await phoneCard.locator('button.approve').count()).toBe(0);
    expect(await phoneCard.locator('.bar button').allTextContents()).toEqual(['Deny', 'Deny and HALT']);
    expect(await phoneCard.locator('.taint').textContent()).toContain('https://evil.example/instructions');
    await shot(ph, 'phone-card-t3');

    const deskCard = desk.locator('oracle-card', { hasText: 'tainted.txt' });
    await deskCard.locator('input.phrase').waitFor({ timeout: 20_000 });
    expect(await deskCard.locator('button.approve').isDisabled()).toBe(true);
    const phrase = (await deskCard.locator('label code').textContent()) ?? '';
    expect(phrase).toMatch(/^fs\.delete [0-9a-f]{6}$/u);
    await deskCard.locator('input.phrase').fill(phrase);
    await shot(desk, 'desktop-card-t3');
    await deskCard.locator('button.approve').click();
    expect((await waiting).body).toMatchObject({ executed: true });
    expect(existsSync(target)).toBe(false);
    // The phone was showing that card: it says the desktop answered it. Waiting for that keeps the
    // next test's card from arriving first, when the phone would hold it behind a "no longer
    // waiting" notice until asked (a card never slides in under the thumb).
    await ph.locator('text=No longer waiting: delete app/tainted.txt').waitFor({ timeout: 20_000 });
  });

  it('the phone denies with a message the agent receives; the desktop undoes a T1 write', async () => {
    const target = join(tree.root, 'projects', 'app', 'keep.txt');
    writeFileSync(target, 'keep');
    const waiting = agent('fs.delete', { path: target });
    const card = ph.locator('oracle-card', { hasText: 'keep.txt' });
    await card.locator('button.deny').waitFor({ timeout: 20_000 });
    await card.locator('summary', { hasText: 'Add a message for the agent' }).click();
    await card.locator('details.note input').fill('not this file, use tmp/');
    await card.locator('button.deny').click();
    expect(JSON.stringify((await waiting).body)).toContain('not this file, use tmp/');
    expect(existsSync(target)).toBe(true);

    // A T1 write runs at once and can be undone from the desktop: the old bytes come back.
    const written = await agent('fs.write', { path: target, content: 'overwritten' });
    expect(written.body).toMatchObject({ executed: true });
    const row = desk.locator('ul.undo-list li', { hasText: 'keep.txt' }).first();
    await row.locator('button.undo').click({ timeout: 20_000 });
    await expect.poll(() => readFileSync(target, 'utf8'), { timeout: 10_000 }).toBe('keep');
    await row.locator('text=undone').waitFor({ timeout: 10_000 });
    await shot(desk, 'desktop-undo');
    // The screen lists the newest 50 and says how many there are, and where to see them all.
    for (let i = 0; i < 50; i++) await agent('fs.write', { path: join(tree.root, 'projects', 'app', `many-${String(i)}.txt`), content: 'x' });
    await desk.locator('p.undo-more', { hasText: 'The 50 newest of' }).waitFor({ timeout: 20_000 });
    expect(await desk.locator('ul.undo-list li').count()).toBe(50);
  });

  it('a write card shows the exact diff against the file it would replace', async () => {
    const target = join(tree.root, 'projects', 'app', 'config.txt');
    writeFileSync(target, 'port = 80\nhost = local\n');
    // A session that read a web page: its write waits for a person (T1 → T2).
    const waiting = agent('fs.write', { path: target, content: 'port = 8080\nhost = local\n' }, { session: 's-web', provenance: [{ kind: 'external', source: 'https://docs.example/setup' }] });
    const card = ph.locator('oracle-card', { hasText: 'config.txt' });
    await card.locator('pre.diff').waitFor({ timeout: 20_000 });
    expect(await card.locator('pre.diff .del').allTextContents()).toEqual(['-port = 80']);
    expect(await card.locator('pre.diff .add').allTextContents()).toEqual(['+port = 8080']);
    await shot(ph, 'phone-card-diff');
    await card.locator('button.deny').click();
    expect((await waiting).body).toMatchObject({ executed: false });
    expect(readFileSync(target, 'utf8')).toBe('port = 80\nhost = local\n');
  });

  it('HALT from the phone kills a running exec; the desktop resumes', async () => {
    const cwd = join(tree.root, 'projects', 'app');
    const running1 = agent('exec.run', { program: 'sleep', args: ['30'], cwd });
    await expect.poll(() => running.runtime.toolhost.supervisor.live, { timeout: 10_000 }).toBeGreaterThan(0);
    const started = Date.now();
    await ph.locator('oracle-halt button.halt').click();
    await shot(ph, 'phone-halt-confirm');
    await ph.locator('oracle-halt button.confirm').click();
    const reply = await running1;
    // The job sleeps 30 s: it ended this early only because HALT killed it.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(reply.body).not.toMatchObject({ exit_code: 0 });
    expect(running.runtime.toolhost.supervisor.live).toBe(0);
    expect(running.runtime.mode()).toBe('halted');
    // Who halted, when and why, on both screens.
    await ph.locator('p.banner.halted', { hasText: /^Halted \(halted by Pixel test at .+: HALT from Pixel test\)\. Resume from the desktop\.$/u }).waitFor({ timeout: 10_000 });
    await shot(ph, 'phone-halted');
    await desk.locator('p.halted-by', { hasText: /^halted by Pixel test at .+: HALT from Pixel test$/u }).waitFor({ timeout: 10_000 });
    // New work is refused while halted.
    expect((await agent('fs.read', { path: join(cwd, 'x') })).body).toMatchObject({ executed: false });
    await desk.locator('button.resume').waitFor({ timeout: 10_000 });
    await shot(desk, 'desktop-halted');
    await desk.locator('button.resume').click();
    await expect.poll(() => running.runtime.mode()).toBe('normal');
    await ph.locator('oracle-halt button.halt').waitFor({ timeout: 10_000 });
    // The desktop hears of the resume on its own event stream, a moment after the phone may.
    await expect.poll(() => desk.locator('p.halted-by').count(), { timeout: 10_000 }).toBe(0);
  });

  it('the desktop shows the audit chain verified and lists devices with revoke', async () => {
    await desk.locator('oracle-audit-panel button').click();
    await expect.poll(() => desk.locator('.audit-verify').textContent()).toContain('Chain intact');
    expect(await desk.locator('.audit-records li').count()).toBeGreaterThan(5);
    expect(await desk.locator('ul.devices').textContent()).toContain('Pixel test');
    await shot(desk, 'desktop-audit-devices');
    // The verdict is derived: one changed byte in the log and the next verification says where.
    const dir = join(running.runtime.gate.home, 'logs', 'audit');
    const month = readdirSync(dir).find((f) => f.endsWith('.jsonl')) ?? '';
    const text = readFileSync(join(dir, month), 'utf8');
    writeFileSync(join(dir, month), text.replace('"kind":"pairing"', '"kind":"pairinG"'));
    await desk.locator('oracle-audit-panel button').click();
    await expect.poll(() => desk.locator('.audit-verify').textContent()).toContain('Chain BROKEN');
    await shot(desk, 'desktop-audit-broken');
  });

  it('pairs a second phone with the typed code, and the desktop revokes it at once', async () => {
    const second = await browser.newContext(PHONE);
    try {
      const page = await second.newPage();
      watch(page, 'typed phone');
      // With a phone paired, pairing and trust fold away; opened, they are there.
      expect(await desk.locator('details.setup').getAttribute('open')).toBeNull();
      await desk.locator('details.setup summary').click();
      await desk.locator('button.start-code').click();
      const code = ((await desk.locator('.pairing-code').textContent()) ?? '').trim();
      expect(code).toMatch(/^\d{8}$/u);
      await page.goto(`${running.url}/`);
      await page.locator('#name').fill('Typed phone');
      await page.locator('#code').fill(code);
      await page.locator('button[type=submit]').click();
      const shown = (await page.locator('.comparison strong').textContent({ timeout: 20_000 })) ?? '';
      await expect.poll(() => desk.locator('.code.comparison').textContent(), { timeout: 10_000 }).toBe(shown);
      expect(await desk.locator('oracle-pairing-panel').locator('text=this comparison is what stops a relay').count()).toBe(1);
      await desk.locator('button.confirm-pair').click();
      await page.locator('text=Waiting for you (0)').waitFor({ timeout: 20_000 });
      const typed = running.credentials.list('dev').find((d) => d.name === 'Typed phone');
      expect(typed?.revoked_at).toBeNull();
      // The desktop lists it without a reload, and a revoke asks first.
      const row = desk.locator('ul.devices li', { hasText: 'Typed phone' });
      await row.locator('button.revoke').click({ timeout: 10_000 });
      expect(running.credentials.list('dev').find((d) => d.name === 'Typed phone')?.revoked_at).toBeNull();
      await row.locator('button.confirm-revoke').click();
      await expect.poll(() => running.credentials.list('dev').find((d) => d.name === 'Typed phone')?.revoked_at ?? null).not.toBeNull();
      // The open phone learns it over its live stream, within about a second, without a reload.
      const revokedAt = Date.now();
      await page.locator('text=This phone is no longer paired').waitFor({ timeout: 5_000 });
      expect(Date.now() - revokedAt).toBeLessThan(2_500);
      await shot(page, 'phone-revoked');
    } finally {
      await second.close();
    }
  });

  it('a changed server key is refused by the phone with a clear screen', async () => {
    await running.close();
    // The desktop screen says the gate is down, in red, instead of a stale mode.
    await desk.locator('.banner.down', { hasText: 'The gate is down' }).waitFor({ timeout: 10_000 });
    expect(await desk.locator('.mode').textContent()).toContain('not answering');
    await shot(desk, 'desktop-gate-down');
    // The other install, on the same address: another TLS key than the one the phone pinned.
    running = await startServer({ home: other.home, policy, port });
    await ph.reload();
    await ph.locator('.changed-key').waitFor({ timeout: 20_000 });
    expect(await ph.locator('.changed-key').textContent()).toContain('refuses to talk to this server');
    expect(await ph.locator('oracle-card').count()).toBe(0);
    await shot(ph, 'phone-changed-key');
  });

  it('works without the service worker from a clicked-through certificate', async () => {
    const untrusted = await launchChromium();
    try {
      const context = await untrusted.newContext({ ...PHONE, ignoreHTTPSErrors: true });
      const page = await context.newPage();
      await page.goto(`${running.url}/`);
      await page.locator('text=Pair this phone with ORACLE').waitFor();
      await expect.poll(() => page.locator('#sw-status').textContent(), { timeout: 10_000 }).toContain('Offline shell: off');
      expect(await page.evaluate('navigator.serviceWorker.getRegistration().then((r) => r === undefined)')).toBe(true);
    } finally {
      await untrusted.close();
    }
  });

  it('no CSP, Trusted Types or script error on any screen', () => {
    expect(errors).toEqual([]);
  });
});
