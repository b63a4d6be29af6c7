import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * What the phone downloads (SPEC §14: under 60 KB gzip): the phone page's entry and every chunk
 * it imports, statically or dynamically, followed through Vite's build manifest, plus the
 * service worker. The desktop screen's own chunk is not shipped to the phone and is reported
 * apart. Writes dist/pwa/size.json; `--check` fails the build over budget.
 */
export const PHONE_BUDGET_BYTES = 60 * 1024;

interface ManifestEntry {
  readonly file: string;
  readonly imports?: readonly string[];
  readonly dynamicImports?: readonly string[];
}

export interface PwaSize {
  readonly phone: { readonly files: readonly { readonly file: string; readonly bytes: number; readonly gzip: number }[]; readonly bytes: number; readonly gzip: number };
  readonly desktop_only_gzip: number;
  readonly budget_gzip: number;
  readonly within_budget: boolean;
}

const gz = (bytes: Buffer): number => gzipSync(bytes, { level: 9 }).length;

export function measurePwa(dir: string): PwaSize {
  const manifest = JSON.parse(readFileSync(join(dir, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestEntry>;
  const reach = (key: string, seen: Set<string>): Set<string> => {
    const entry = manifest[key];
    if (entry === undefined || seen.has(key)) return seen;
    seen.add(key);
    for (const next of [...(entry.imports ?? []), ...(entry.dynamicImports ?? [])]) reach(next, seen);
    return seen;
  };
  const phoneKeys = reach('index.html', new Set());
  const desktopKeys = [...reach('desktop.html', new Set())].filter((k) => !phoneKeys.has(k));
  const fileOf = (key: string): string => manifest[key]?.file ?? key;
  const files = [...[...phoneKeys].map(fileOf), 'sw.js'].map((file) => {
    const bytes = readFileSync(join(dir, file));
    return { file, bytes: bytes.length, gzip: gz(bytes) };
  });
  const gzip = files.reduce((sum, f) => sum + f.gzip, 0);
  const desktop = desktopKeys.map(fileOf).reduce((sum, file) => sum + gz(readFileSync(join(dir, file))), 0);
  return { phone: { files, bytes: files.reduce((sum, f) => sum + f.bytes, 0), gzip }, desktop_only_gzip: desktop, budget_gzip: PHONE_BUDGET_BYTES, within_budget: gzip < PHONE_BUDGET_BYTES };
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const dir = join(import.meta.dirname, '..', 'dist', 'pwa');
  const size = measurePwa(dir);
  writeFileSync(join(dir, 'size.json'), JSON.stringify(size, null, 2) + '\n');
  const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;
  process.stdout.write(`PWA: JavaScript shipped to the phone ${kb(size.phone.gzip)} gzip (${kb(size.phone.bytes)} raw, ${String(size.phone.files.length)} files incl. the service worker); budget ${kb(size.budget_gzip)}; desktop-only ${kb(size.desktop_only_gzip)} gzip\n`);
  if (process.argv.includes('--check') && !size.within_budget) {
    process.stderr.write('PWA over its 60 KB gzip budget (SPEC §14)\n');
    process.exit(1);
  }
}
