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
  const bundle = headlessBundle();
  if (bundle === undefined) return { ...(await import('./hook-headless.js')), keep: () => undefined };
  const loaded = runCachedCommonJs(bundle);
  const headless = loaded.exports as Headless;
  const keep = (): void => {
    // A Bash call changed V8's flags for the parser: its cache would not fit a Read.
    if (headless.cacheable()) loaded.keep();
  };
  return { ...headless, keep };
}
