import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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
