import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ORACLE_BIN_PATH, packageRoot } from './package-root.js';

/**
 * Where the build put the hook's bundles (dist/hook, made by scripts/bundle-hook.ts). Run from
 * source there are none, and callers load the modules instead.
 */

/** The thin client's bundle, seen from dist/server/adapters (where this file is compiled to). */
export async function importHookBundle(): Promise<unknown> {
  const bundle = new URL('../../hook/hook.js', import.meta.url);
  return existsSync(bundle) ? import(bundle.href) : undefined;
}

/** The headless bundle, seen from inside the thin client's bundle (this file is bundled into it). */
export function headlessBundle(): string | undefined {
  const bundle = fileURLToPath(new URL('./headless.cjs', import.meta.url));
  return existsSync(bundle) ? bundle : undefined;
}

/**
 * What Claude Code's command hook runs, by absolute path: the hook's own CommonJS entry when the
 * build made it, else the `oracle` command; both take `hook claude-code --home DIR`.
 */
export function hookEntryPath(): string {
  const entry = join(packageRoot(), 'dist', 'hook', 'oracle-hook.cjs');
  return existsSync(entry) ? entry : ORACLE_BIN_PATH;
}
