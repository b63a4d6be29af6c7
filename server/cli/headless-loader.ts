import { setFlagsFromString } from 'node:v8';
import { runCachedCommonJs } from '../adapters/cached-script.js';
import { headlessBundle } from '../adapters/hook-bundle.js';

import type * as HeadlessModule from './hook-headless.js';

type Headless = typeof HeadlessModule;

/**
 * The hook's headless half, loaded only when no gate runs. Installed, it is the CommonJS bundle
 * beside the hook's own bundle (dist/hook/headless.cjs, see scripts/bundle-hook.ts) run from V8's
 * code cache; run from source, it is the module.
 */
export async function loadHeadless(): Promise<Headless & { keep(): void }> {
  // This process judges one call and exits: V8's background re-compilation of the bash parser's
  // WebAssembly with its optimising tier only costs CPU and holds the exit back (a headless Bash
  // call went from ~1.3 s to ~0.7 s here), so the baseline compiler alone runs it. Set before
  // anything is compiled: V8 refuses a code cache made under other flags. The gate keeps tier-up.
  setFlagsFromString('--liftoff-only');
  const bundle = headlessBundle();
  if (bundle === undefined) return { ...(await import('./hook-headless.js')), keep: () => undefined };
  const loaded = runCachedCommonJs(bundle);
  const keep = (): void => {
    loaded.keep();
  };
  return { ...(loaded.exports as Headless), keep };
}
