import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempTree, type TempTree } from '../../tests/fixtures/temp-tree.js';
import { runCachedCommonJs } from './cached-script.js';

describe('a CommonJS bundle run from V8 code cache', () => {
  let tree: TempTree;
  let dir = '';
  beforeEach(() => {
    tree = tempTree('oracle-cached-script-');
    dir = tree.root;
  });
  afterEach(() => {
    tree.dispose();
  });
  const source = (n: number) => `const path = require('node:path');\nexports.answer = (x) => path.basename(x) + ${String(n)};\nexports.file = __filename;\n`;

  it('compiles once, keeps the cache, and starts from it next time', () => {
    const file = join(dir, 'b.cjs');
    writeFileSync(file, source(1));
    const first = runCachedCommonJs(file);
    expect(first.fromCache).toBe(false);
    expect((first.exports as { answer: (x: string) => string }).answer('/a/b')).toBe('b1');
    expect((first.exports as { file: string }).file).toBe(file);
    first.keep();
    const kept = statSync(`${file}.cache`);
    expect(kept.size).toBeGreaterThan(0);
    const second = runCachedCommonJs(file);
    expect(second.fromCache).toBe(true);
    expect((second.exports as { answer: (x: string) => string }).answer('/a/c')).toBe('c1');
    second.keep(); // accepted: nothing to write
    expect(statSync(`${file}.cache`).mtimeMs).toBe(kept.mtimeMs);
  });

  it('compiles from source when the cache is for other code or is garbage, and makes it again', () => {
    const file = join(dir, 'b.cjs');
    writeFileSync(file, source(1));
    runCachedCommonJs(file).keep();
    writeFileSync(file, source(22));
    const changed = runCachedCommonJs(file);
    expect(changed.fromCache).toBe(false);
    expect((changed.exports as { answer: (x: string) => string }).answer('/x')).toBe('x22');
    changed.keep();
    expect(runCachedCommonJs(file).fromCache).toBe(true);
    // New source again: V8 keeps what this process compiled and would not even read a cache for it.
    writeFileSync(file, source(333));
    writeFileSync(`${file}.cache`, Buffer.from('not a code cache'));
    const garbage = runCachedCommonJs(file);
    expect(garbage.fromCache).toBe(false);
    expect((garbage.exports as { answer: (x: string) => string }).answer('/y')).toBe('y333');
  });
});
