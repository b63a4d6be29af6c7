import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from '../tests/fixtures/browser.js';

/**
 * Renders the PNG icons in pwa/public from the one drawing (run by hand after changing it:
 * `node --import tsx scripts/render-icons.ts`; the PNGs are committed, so a build never needs a
 * browser). `any` icons keep the rounded square; the maskable one fills its square with the
 * background and keeps the mark inside the 80% safe zone; the apple-touch-icon has no transparency.
 */
const MARK = '<circle cx="256" cy="256" r="150" fill="none" stroke="#fff" stroke-width="44"/><rect x="232" y="150" width="48" height="140" rx="20" fill="#fff"/><circle cx="256" cy="345" r="26" fill="#fff"/>';
const rounded = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"><rect width="512" height="512" rx="96" fill="#0b5cad"/>${MARK}</svg>`;
const square = (scale: number) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"><rect width="512" height="512" fill="#0b5cad"/><g transform="translate(256 256) scale(${String(scale)}) translate(-256 -256)">${MARK}</g></svg>`;
const out = join(import.meta.dirname, '..', 'pwa', 'public');
const icons: [string, number, string][] = [
  ['icon-192.png', 192, rounded],
  ['icon-512.png', 512, rounded],
  ['icon-maskable-512.png', 512, square(0.78)],
  ['apple-touch-icon.png', 180, square(0.9)],
];
// The tray's icon per gate mode (assets/tray, read by `oracle tray`): the same mark, its colour the mode.
const trayDir = join(import.meta.dirname, '..', 'assets', 'tray');
const tray = (fill: string) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"><rect width="512" height="512" rx="120" fill="${fill}"/>${MARK}</svg>`;
const trayIcons: [string, string][] = [
  ['normal.png', '#0b5cad'],
  ['pending.png', '#b35c00'],
  ['halted.png', '#b00020'],
  ['down.png', '#5f6368'],
];
const browser = await launchChromium();
try {
  for (const [name, fill] of trayIcons) {
    const page = await browser.newPage({ viewport: { width: 64, height: 64 } });
    await page.setContent(`<html><body style="margin:0;background:transparent">${tray(fill).replace('<svg ', '<svg width="64" height="64" ')}</body></html>`);
    writeFileSync(join(trayDir, name), await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: 64, height: 64 } }));
    await page.close();
  }
  for (const [name, size, svg] of icons) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg.replace('<svg ', `<svg width="${String(size)}" height="${String(size)}" `)}</body></html>`);
    writeFileSync(join(out, name), await page.screenshot({ omitBackground: !name.startsWith('apple'), clip: { x: 0, y: 0, width: size, height: size } }));
    await page.close();
  }
} finally {
  await browser.close();
}
