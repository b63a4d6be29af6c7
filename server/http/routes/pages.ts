import { Hono } from 'hono';
import { fail } from '../errors.js';

/** One built file of the PWA (pwa/ → dist/pwa), read by the composition root, served as is. */
export interface Asset {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly type: string;
  /** The same bytes precompressed at build (scripts/precompress.ts), when they were. */
  readonly br?: Uint8Array<ArrayBuffer>;
  readonly gzip?: Uint8Array<ArrayBuffer>;
}

/** The encoding to send: brotli, then gzip, when the browser accepts it (q=0 refuses) and the build made it. */
export function chooseEncoding(accept: string | undefined, asset: Asset): 'br' | 'gzip' | undefined {
  const accepted = new Set(
    (accept ?? '')
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, q]) => q === undefined || !/^\s*q=0(?:\.0*)?\s*$/u.test(q))
      .map(([name]) => (name ?? '').trim().toLowerCase()),
  );
  if (asset.br !== undefined && accepted.has('br')) return 'br';
  if (asset.gzip !== undefined && accepted.has('gzip')) return 'gzip';
  return undefined;
}

export interface Assets {
  get(path: string): Asset | undefined;
}

/**
 * The pages' Content-Security-Policy (SPEC §10): scripts, styles and connections from this origin
 * only, no inline script or style, Trusted Types (lit's own policy, and one that names only /sw.js), data:
 * images only (the pairing QR is an SVG rendered by the server), nothing framed, no forms.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  'trusted-types lit-html oracle-sw',
].join('; ');

/**
 * The service worker's own policy: a CSP on a worker script governs the worker, and workbox must
 * fetch this origin's files to precache them; nothing else.
 */
export const WORKER_CSP = "default-src 'none'; connect-src 'self'";

/** Page paths and the built file each serves: the phone app (also the QR's `/pair`) and the desktop screen. */
const PAGES: Readonly<Record<string, string>> = { '/': '/index.html', '/pair': '/index.html', '/desktop': '/desktop.html' };

/**
 * The built PWA: pages with the strict CSP and no caching (a new build shows at once), hashed
 * assets cached for good, the service worker always revalidated. Anything else is not found.
 */
export function pageRoutes(assets: Assets | undefined): Hono {
  const app = new Hono();
  app.get('*', (c) => {
    const path = new URL(c.req.url).pathname;
    const file = PAGES[path] ?? path;
    if (file.startsWith('/api/')) return fail(c, 'NOT_FOUND', 'no such route');
    if (assets === undefined) return fail(c, 'NOT_FOUND', 'the PWA is not built here: run `npm run build`');
    const asset = assets.get(file);
    if (asset === undefined) return fail(c, 'NOT_FOUND', 'no such page or file');
    c.header('content-type', asset.type);
    c.header('x-content-type-options', 'nosniff');
    if (file.endsWith('.html')) c.header('content-security-policy', PAGE_CSP);
    if (file === '/sw.js') c.header('content-security-policy', WORKER_CSP);
    c.header('cache-control', file.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    c.header('vary', 'accept-encoding');
    const encoding = chooseEncoding(c.req.header('accept-encoding'), asset);
    if (encoding === undefined) return c.body(asset.body);
    c.header('content-encoding', encoding);
    return c.body(encoding === 'br' ? (asset.br ?? asset.body) : (asset.gzip ?? asset.body));
  });
  return app;
}
