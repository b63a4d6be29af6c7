import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { launchChromium } from '../fixtures/browser.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * The desktop screen without a session (its login link was used, or the gate restarted and its
 * sessions went with it) says how to get a new link without stopping the gate: `oracle desktop`
 * (SPEC §9 desktop login; README), not a restart that would be the only way back otherwise.
 */
describe.skipIf(process.env['ORACLE_SKIP_BROWSER'] === '1')('the desktop screen signed out', () => {
  let tree: TempTree;
  let running: Running;
  let browser: Browser;

  beforeAll(async () => {
    tree = tempTree('oracle-desk-sign-in-');
    running = await startServer({ home: tree.dir('home'), port: 0 });
    browser = await launchChromium([running.spkiSha256]);
  });

  afterAll(async () => {
    await browser.close();
    await running.close();
    tree.dispose();
  });

  it('names oracle desktop for a new login link', async () => {
    const desk = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await desk.goto(`${running.url}/desktop`);
    const panel = desk.locator('section[role=alert]', { hasText: 'Sign in to the desktop screen' });
    await panel.waitFor({ timeout: 10_000 });
    expect(await panel.locator('code').allTextContents()).toContain('oracle desktop');
    expect(await panel.innerText()).not.toContain('Restart npm start');
  });
});
