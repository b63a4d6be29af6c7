import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/**
 * Runs one CommonJS bundle of ORACLE's own code with V8's code cache (SPEC §11: the hook starts
 * once per tool call, and compiling the same megabyte of JavaScript every time is most of what a
 * call costs). What V8 compiled while the first call ran is kept in `<file>.cache`, beside the
 * bundle in the install directory (which agents may not write: deny_always.oracle_install), and
 * every later process starts from it. V8 itself refuses a cache made by another V8 version, with
 * other flags or for other source, and the bundle is then compiled as usual and the cache made
 * again. Node 22 does this natively (`module.enableCompileCache`); Node 20 does not have it.
 */
export interface CachedModule {
  readonly exports: unknown;
  /** Whether V8 took the kept cache (false: none yet, or refused, and compiled from source). */
  readonly fromCache: boolean;
  /** Keeps what V8 compiled so far for the next process, if the cache was missing or refused. */
  keep(): void;
}

export function runCachedCommonJs(file: string): CachedModule {
  const cacheFile = `${file}.cache`;
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined; // not made yet: this process makes it
  }
  // The same wrapper Node puts around a CommonJS file.
  const source = `(function (exports, require, module, __filename, __dirname) { ${readFileSync(file, 'utf8')}\n})`;
  // No import() may run in this code: Node 20 loses the callback for code from a cache ("a dynamic
  // import callback was not specified"). Lazy loads use lazyModule; the build refuses an import().
  const script = new Script(source, { filename: file, ...(cachedData === undefined ? {} : { cachedData }) });
  const module = { exports: {} as unknown };
  // eslint-disable-next-line max-params -- the five parameters of Node's CommonJS wrapper, in its order
  const init = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  init.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  const stale = cachedData === undefined || script.cachedDataRejected === true;
  return {
    exports: module.exports,
    fromCache: !stale,
    keep: () => {
      if (!stale) return;
      try {
        const tmp = `${cacheFile}.${String(process.pid)}.tmp`;
        writeFileSync(tmp, script.createCachedData(), { mode: 0o644 });
        renameSync(tmp, cacheFile);
      } catch {
        // A read-only install: every call compiles, which costs time and nothing else.
      }
    },
  };
}
