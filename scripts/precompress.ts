import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/**
 * Precompresses the built PWA's text files (issue 15): beside each `.js`, `.css`, `.html`,
 * `.svg` and `.webmanifest` in dist/pwa, a `.br` (brotli, best) and a `.gz` (gzip -9), made once
 * here so the gate never compresses per request; it serves the one the browser accepts
 * (server/adapters/pwa-assets.ts, server/http/routes/pages.ts).
 */
export const COMPRESSIBLE = /\.(?:js|css|html|svg|webmanifest)$/u;

export function precompress(dir: string): number {
  let made = 0;
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = join(at, entry.name);
      if (entry.isDirectory() && entry.name !== '.vite') walk(full);
      else if (entry.isFile() && COMPRESSIBLE.test(entry.name)) {
        const bytes = readFileSync(full);
        writeFileSync(`${full}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
        writeFileSync(`${full}.gz`, gzipSync(bytes, { level: 9 }));
        made++;
      }
    }
  };
  walk(dir);
  return made;
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  precompress(join(import.meta.dirname, '..', 'dist', 'pwa'));
}
