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
/**
 * In the page: waits, frame by frame, for the card naming `file` to show under `host` (alone in
 * the list when `alone`), and gives whether its Approve and Deny were disabled at first sight.
 * (A script: the tests are not compiled with the DOM's types.)
 */
function buttonsWhenShown(where: { host: string; file: string; alone?: boolean }): string {
  return `new Promise((resolve) => {
    const where = ${JSON.stringify(where)};
    const look = () => {
      const cards = [...(document.querySelector(where.host)?.shadowRoot?.querySelectorAll('oracle-card') ?? [])];
      const shown = cards.find((c) => c.shadowRoot?.querySelector('h3.sentence')?.textContent?.includes(where.file) === true);
      const approve = shown?.shadowRoot?.querySelector('button.approve');
      const deny = shown?.shadowRoot?.querySelector('button.deny');
      if (approve != null && deny != null && (where.alone !== true || cards.length === 1)) resolve({ approve: approve.disabled, deny: deny.disabled });
      else requestAnimationFrame(look);
    };
    look();
  })`;
}

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
    for (const f of ['first.txt', 'second.txt', 'third.txt', 'fourth.txt', 'fifth.txt', 'sixth.txt', 't3.txt']) writeFileSync(join(app, f), 'x\n');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.delete] }\ntiers:\n  - { tool: fs.delete, path: "**/t3.txt", tier: T3, why: "a test of T3 on the phone" }\n`);
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

  it('moves straight on after its own answer, the next card answerable only once it has settled', async () => {
    ask('third.txt');
    await card().locator('h3.sentence', { hasText: 'third.txt' }).waitFor({ timeout: 10_000 });
    ask('fourth.txt');
    await ph.locator('.position', { hasText: '1 of 2' }).waitFor({ timeout: 10_000 });
    // Watched in the page, frame by frame: the state of the next card's buttons when it first shows.
    const firstSight = ph.evaluate(buttonsWhenShown({ host: 'oracle-phone', file: 'fourth.txt' }));
    await card().locator('button.deny').click();
    // A second tap right after the first (a double tap) must not answer the card that slid in.
    expect(await firstSight).toEqual({ approve: true, deny: true });
    await card().locator('h3.sentence', { hasText: 'fourth.txt' }).waitFor({ timeout: 10_000 });
    expect(await ph.locator('.gone').count()).toBe(0);
    await expect.poll(() => card().locator('button.approve').isEnabled(), { timeout: 5000 }).toBe(true);
  });

  it('on the desktop, holds the buttons of cards that closed up under the pointer when one above them left', async () => {
    await card().locator('button.deny').click(); // fourth.txt, answered on the phone
    ask('fifth.txt');
    await desk.locator('oracle-card', { hasText: 'fifth.txt' }).waitFor({ timeout: 10_000 });
    ask('sixth.txt');
    await desk.locator('oracle-card', { hasText: 'sixth.txt' }).waitFor({ timeout: 10_000 });
    await expect.poll(() => desk.locator('oracle-card', { hasText: 'sixth.txt' }).locator('button.approve').isEnabled(), { timeout: 5000 }).toBe(true);
    const firstSight = desk.evaluate(buttonsWhenShown({ host: 'oracle-desktop', file: 'sixth.txt', alone: true }));
    // The phone answers the card above: sixth.txt moves up to where fifth.txt's Approve was.
    await card().locator('h3.sentence', { hasText: 'fifth.txt' }).waitFor({ timeout: 10_000 });
    await card().locator('button.deny').click();
    expect(await firstSight).toEqual({ approve: true, deny: true });
    await expect.poll(() => desk.locator('oracle-card', { hasText: 'sixth.txt' }).locator('button.approve').isEnabled(), { timeout: 5000 }).toBe(true);
    await desk.locator('oracle-card', { hasText: 'sixth.txt' }).locator('button.deny').click();
    // The phone showed sixth.txt after its own answer: it says the desktop's answer in its status
    // line. A request that arrived before the phone saw that answer would wait behind a "gone" note.
    await ph.locator('p[role=status]', { hasText: 'No longer waiting: delete app/sixth.txt — denied by the desktop' }).waitFor({ timeout: 10_000 });
  });

  it('halts on "Deny and HALT" first and alone: HALT cancels the card, no denial races it', async () => {
    ask('t3.txt');
    await card().locator('h3.sentence', { hasText: 't3.txt' }).waitFor({ timeout: 10_000 });
    // A denial sent beside HALT could overtake it and have HALT refused as out of counter order.
    let denials = 0;
    await ph.route('**/api/v1/approvals/*/deny', (route) => {
      denials += 1;
      return route.abort();
    });
    try {
      await card().locator('button.deny-halt').click();
      await expect.poll(() => running.runtime.mode(), { timeout: 10_000 }).toBe('halted');
      await ph.locator('p[role=status]', { hasText: 'Halted: every agent action is stopped, and delete app/t3.txt with them.' }).waitFor({ timeout: 10_000 });
      expect(denials).toBe(0);
    } finally {
      await ph.unroute('**/api/v1/approvals/*/deny');
    }
  });

  it('ends with every agent answered', async () => {
    await running.runtime.halt('end of test', 'desktop');
    await Promise.all(waiting);
  });
});
