import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { launchChromium } from '../fixtures/browser.js';
import { call } from '../fixtures/https-client.js';
import { pairInBrowser } from '../fixtures/pair-in-browser.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

// No service worker: the test holds the second phone's answer in flight with page.route.
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, serviceWorkers: 'block' as const };

/**
 * Two phones answer the same card (SPEC §7: an approval is single-use): the first answer counts,
 * and the phone whose answer came second says that its answer did not count and what happened,
 * instead of the card just vanishing as if its own answer had been taken.
 */
describe.skipIf(process.env['ORACLE_SKIP_BROWSER'] === '1')('two phones answer one card', () => {
  let tree: TempTree;
  let running: Running;
  let browser: Browser;
  let desk: Page;
  let first: Page;
  let second: Page;
  let ca = '';
  let token = '';
  let app = '';

  beforeAll(async () => {
    tree = tempTree('oracle-two-phones-');
    app = tree.dir('projects/app');
    writeFileSync(join(app, 'old.txt'), 'x\n');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.delete] }\n`);
    running = await startServer({ home: tree.dir('home'), policy, port: 0 });
    ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    token = (await running.credentials.issue('ag', 'claude-code')).token;
    browser = await launchChromium([running.spkiSha256]);
    desk = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    first = await (await browser.newContext(PHONE)).newPage();
    await pairInBrowser(desk, first, running.loginUrl, 'Pixel first');
    // The desktop is signed in now: the second phone pairs from a new QR.
    second = await (await browser.newContext(PHONE)).newPage();
    await pairInBrowser(desk, second, undefined, 'Pixel second');
  });

  afterAll(async () => {
    await browser.close();
    await running.close();
    tree.dispose();
  });

  it('the later phone says its denial did not count, and that the other phone approved', async () => {
    const waiting = call(`${running.url}/api/v1/actions?wait=60`, { ca, method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ tool: 'fs.delete', args: { path: join(app, 'old.txt') } }) });
    await first.locator('oracle-card button.approve').waitFor({ timeout: 10_000 });
    await second.locator('oracle-card button.deny').waitFor({ timeout: 10_000 });
    // The second phone's Deny leaves before the first phone's Approve and arrives after it.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => { release = resolve; });
    await second.route('**/api/v1/approvals/*/deny', async (route) => { await held; await route.continue(); });
    await second.locator('oracle-card button.deny').click();
    await first.locator('oracle-card button.approve').click();
    expect((await waiting).body).toMatchObject({ executed: true });
    release();
    const said = second.locator('p[role=status]', { hasText: 'Your denial did not count' });
    await said.waitFor({ timeout: 10_000 });
    expect(await said.innerText()).toContain('delete app/old.txt — approved by Pixel first · ran');
    expect(await first.locator('p[role=status]', { hasText: 'Approved: delete app/old.txt' }).count()).toBe(1);
  });
});
