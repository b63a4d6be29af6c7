import { readFileSync, writeFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
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
 * The card a person is reading on the phone ends without their answer (the agent withdraws it,
 * the desktop answers it): while others wait, the phone says so in its place and shows the next
 * request only when asked, never swapping another request in under the person's thumb; when none
 * waits, it says so in the status line. Its own answers still move straight on to the next card.
 */
describe.skipIf(process.env['ORACLE_SKIP_BROWSER'] === '1')('a card that ends while the phone shows it', () => {
  let tree: TempTree;
  let running: Running;
  let browser: Browser;
  let ph: Page;
  let desk: Page;
  let ca = '';
  let token = '';
  let app = '';
  const waiting: Promise<unknown>[] = [];

  /** An agent's request that waits for a person; destroying it withdraws the action. */
  const ask = (file: string): ClientRequest => {
    const req = request(`${running.url}/api/v1/actions?wait=120`, { ca, method: 'POST', headers: { authorization: `Bearer ${token}` } });
    waiting.push(new Promise((resolve) => { req.on('close', resolve); req.on('error', resolve); req.on('response', (res) => { res.resume(); }); }));
    req.end(JSON.stringify({ tool: 'fs.delete', args: { path: join(app, file) } }));
    return req;
  };
  const card = () => ph.locator('oracle-card');

  beforeAll(async () => {
    tree = tempTree('oracle-card-gone-');
    app = tree.dir('projects/app');
    for (const f of ['first.txt', 'second.txt', 'third.txt', 'fourth.txt']) writeFileSync(join(app, f), 'x\n');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.delete] }\n`);
    running = await startServer({ home: tree.dir('home'), policy, port: 0 });
    ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    token = (await running.credentials.issue('ag', 'claude-code')).token;
    browser = await launchChromium([running.spkiSha256]);
    desk = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    ph = await (await browser.newContext(PHONE)).newPage();
    await pairInBrowser(desk, ph, running.loginUrl, 'Pixel gone');
  });

  afterAll(async () => {
    await browser.close();
    await running.close();
    tree.dispose();
  });

  it('says the withdrawn card is gone instead of swapping in the next one', async () => {
    const first = ask('first.txt');
    await card().locator('h3.sentence', { hasText: 'first.txt' }).waitFor({ timeout: 10_000 });
    ask('second.txt');
    await ph.locator('.position', { hasText: '1 of 2' }).waitFor({ timeout: 10_000 });
    first.destroy();
    const gone = ph.locator('.gone');
    await gone.waitFor({ timeout: 10_000 });
    expect(await gone.innerText()).toMatch(/delete app\/first\.txt — withdrawn by the agent/u);
    // Nothing to approve until the person asks for the next request.
    expect(await card().count()).toBe(0);
    await ph.locator('button.show-next').click();
    await card().locator('h3.sentence', { hasText: 'second.txt' }).waitFor();
    expect(await gone.count()).toBe(0);
  });

  it('says who answered it when the desktop did', async () => {
    ask('third.txt');
    await ph.locator('.position', { hasText: '1 of 2' }).waitFor({ timeout: 10_000 });
    const shown = desk.locator('oracle-card', { hasText: 'second.txt' });
    await shown.locator('button.deny').click();
    await ph.locator('.gone', { hasText: 'delete app/second.txt — denied by the desktop' }).waitFor({ timeout: 10_000 });
    expect(await card().count()).toBe(0);
  });

  it('says it in the status line when nothing else waits', async () => {
    await ph.locator('button.show-next').click();
    const third = desk.locator('oracle-card', { hasText: 'third.txt' });
    await card().locator('h3.sentence', { hasText: 'third.txt' }).waitFor({ timeout: 10_000 });
    await third.locator('button.deny').click();
    await ph.locator('p[role=status]', { hasText: 'No longer waiting: delete app/third.txt — denied by the desktop' }).waitFor({ timeout: 10_000 });
    expect(await ph.locator('.gone').count()).toBe(0);
  });

  it('moves straight on after its own answer', async () => {
    ask('third.txt');
    await card().locator('h3.sentence', { hasText: 'third.txt' }).waitFor({ timeout: 10_000 });
    ask('fourth.txt');
    await ph.locator('.position', { hasText: '1 of 2' }).waitFor({ timeout: 10_000 });
    await card().locator('button.deny').click();
    await card().locator('h3.sentence', { hasText: 'fourth.txt' }).waitFor({ timeout: 10_000 });
    expect(await ph.locator('.gone').count()).toBe(0);
  });

  it('ends with every agent answered', async () => {
    await running.runtime.halt('end of test', 'desktop');
    await Promise.all(waiting);
  });
});
