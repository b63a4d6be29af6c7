import type * as V8 from 'node:v8';
import { lazyModule } from './lazy-module.js';

/**
 * WebAssembly on V8's baseline compiler alone, for a process that judges one call and exits (the
 * headless hook, SPEC §11): V8's background re-compilation of the bash parser's WebAssembly with
 * its optimising tier only costs CPU and holds the exit back (a headless Bash call here took ~10×
 * `node -e 0` with it, ~2.5× without). The gate, which lives long, keeps tier-up.
 *
 * Set only just before the parser is compiled, never at start: V8 refuses every code cache made
 * under other flags, Node's own for its built-in modules included, so a flag set at start made
 * every call (a Read too) compile the modules it loads from source.
 */
const v8 = lazyModule<typeof V8>('node:v8');
let changed = false;

export function baselineWasmOnly(): void {
  if (changed) return;
  v8().setFlagsFromString('--liftoff-only');
  changed = true;
}

/** Whether this process changed V8's flags (a code cache made now would not fit the next process). */
export function wasmFlagsChanged(): boolean {
  return changed;
}
