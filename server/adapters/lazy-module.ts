import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/**
 * A module loaded on first use, synchronously, instead of `await import()`: the hook loads only
 * what a call needs (networking, processes and the shell parser stay unloaded for a Read), and
 * its headless bundle runs from V8's code cache, where Node 20 cannot run an `import()` at all
 * ("a dynamic import callback was not specified"). scripts/bundle-hook.ts refuses a bundle that
 * still has one. Only for Node's own modules and packages that ship CommonJS.
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the module's type (from an `import type`); require() cannot know it
export function lazyModule<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= load(specifier) as T;
    return loaded;
  };
}
