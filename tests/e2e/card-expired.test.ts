import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { launchChromium } from '../fixtures/browser.js';
import { pairInBrowser } from '../fixtures/pair-in-browser.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/**
 * A card whose time ran out while the phone shows it offers no answer from that moment (the gate
 * would refuse it), instead of keeping Approve and Deny until the gate's sweep removes the card.
 * The phone's clock is moved past the expiry (Playwright's clock); the gate's is not.
 */
describe.skipIf(process.env['ORACLE_SKIP_BROWSER'] === '1')('a card that expires on the phone', () => {
  let tree: TempTree;
  let running: Running;
  let browser: Browser;
  let ph: Page;
  let ca = '';
  let token = '';
  let app = '';

  beforeAll(async () => {
    tree = tempTree('oracle-card-expired-');
    app = tree.dir('projects/app');
    writeFileSync(join(app, 'old.txt'), 'x\n');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.delete] }\n`);
    running = await startServer({ home: tree.dir('home'), policy, port: 0 });
    ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    token = (await running.credentials.issue('ag', 'claude-code')).token;
    browser = await launchChromium([running.spkiSha256]);
    const desk = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    ph = await (await browser.newContext(PHONE)).newPage();
    await pairInBrowser(desk, ph, running.loginUrl, 'Pixel clock');
  });

  afterAll(async () => {
    await browser.close();
    await running.close();
    tree.dispose();
  });

  it('takes Approve and Deny away at the expiry and says why', async () => {
    await ph.clock.install();
    const req = request(`${running.url}/api/v1/actions?wait=0`, { ca, method: 'POST', headers: { authorization: `Bearer ${token}` } });
    req.on('response', (res) => res.resume());
    req.end(JSON.stringify({ tool: 'fs.delete', args: { path: join(app, 'old.txt') } }));
    const card = ph.locator('oracle-card', { hasText: 'old.txt' });
    await card.locator('button.approve').waitFor({ timeout: 20_000 });
    await ph.clock.fastForward('05:01');
    await card.locator('p.expired', { hasText: 'expired unanswered' }).waitFor({ timeout: 10_000 });
    expect(await card.locator('button.approve').count()).toBe(0);
    expect(await card.locator('button.deny').count()).toBe(0);
  });
});
