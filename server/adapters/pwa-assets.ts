import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { Asset, Assets } from '../http/routes/pages.js';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The built PWA (`npm run build` → dist/pwa), read once at start into memory: a few small files,
 * served without touching the disk again, and nothing outside that folder can be named.
 * Where it is: beside the compiled server (dist/server → dist/pwa), or dist/pwa from the sources
 * (a built folder has sw.js; the source folder pwa/ does not).
 */
export function pwaDirectory(serverDir: string): string | undefined {
  return [join(serverDir, '..', 'pwa'), join(serverDir, '..', 'dist', 'pwa')].find((dir) => existsSync(join(dir, 'sw.js')));
}

export function loadAssets(dir: string | undefined): Assets | undefined {
  if (dir === undefined) return undefined;
  const files = new Map<string, Asset>();
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      // A precompressed copy is served in its file's place (pages.ts), never under its own name.
      else if (entry.isFile() && !entry.name.endsWith('.map') && !/\.(?:br|gz)$/u.test(entry.name)) {
        const type = TYPES[extname(entry.name)] ?? 'application/octet-stream';
        const copy = (suffix: string): Uint8Array<ArrayBuffer> | undefined => (existsSync(`${full}${suffix}`) ? new Uint8Array(readFileSync(`${full}${suffix}`)) : undefined);
        const br = copy('.br');
        const gzip = copy('.gz');
        files.set(`/${relative(dir, full).split(sep).join('/')}`, { body: new Uint8Array(readFileSync(full)), type, ...(br === undefined ? {} : { br }), ...(gzip === undefined ? {} : { gzip }) });
      }
    }
  };
  walk(dir);
  return { get: (path) => files.get(path) };
}
