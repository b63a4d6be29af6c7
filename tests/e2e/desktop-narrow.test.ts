import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { launchChromium } from '../fixtures/browser.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * The desktop screen in a narrow window (a browser snapped to a third of the screen, 360 px):
 * its panels shrink to the window, so nothing scrolls sideways and no panel's right edge is cut.
 */
describe.skipIf(process.env['ORACLE_SKIP_BROWSER'] === '1')('the desktop screen in a narrow window', () => {
  let tree: TempTree;
  let running: Running;
  let browser: Browser;

  beforeAll(async () => {
    tree = tempTree('oracle-desk-narrow-');
    running = await startServer({ home: tree.dir('home'), port: 0 });
    browser = await launchChromium([running.spkiSha256]);
  });

  afterAll(async () => {
    await browser.close();
    await running.close();
    tree.dispose();
  });

  it('never scrolls sideways at 360 px', async () => {
    const desk = await (await browser.newContext({ viewport: { width: 360, height: 740 } })).newPage();
    await desk.goto(running.loginUrl);
    await desk.locator('details.setup').waitFor({ state: 'attached', timeout: 10_000 });
    expect(await desk.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
  });
});
