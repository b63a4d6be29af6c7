import { describe, expect, it } from 'vitest';
import { compileGlob, firstMatch } from './glob.js';
import { indexGlobs } from './glob-index.js';

/** A small deterministic generator, so a failure names a reproducible case. */
function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const PATTERNS = ['.ssh', '.env', '*.pem', 'id_rsa*', '.git/hooks', '/etc/**', 'secret*', '*.key', 'node_modules/.bin', '**/build/*.o', 'a?b', '{x,y}.txt', '/home/u/priv', '.aws/credentials', '*rc', 'Secrets', 'tmp/*', '.Env'];
const SEGMENTS = ['home', 'u', 'projects', 'app', 'src', '.ssh', '.env', 'id_rsa', 'id_rsa.pub', 'key.pem', 'x.key', 'build', 'a.o', 'node_modules', '.bin', '.git', 'hooks', 'etc', 'passwd', 'secrets.txt', 'SECRET.md', '.bashrc', 'aXb', 'x.txt', 'priv', '.aws', 'credentials', 'tmp', 'Secrets', '.ENV'];

describe('indexGlobs finds exactly what firstMatch finds', () => {
  it.each([false, true])('over 2,000 random policies and paths (nocase %s)', (nocase) => {
    const random = rng(nocase ? 7 : 11);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    for (let policy = 0; policy < 40; policy++) {
      // Above the index threshold, with repeats and suffixed variants so buckets hold several globs.
      const globs = Array.from({ length: 80 + Math.floor(random() * 200) }, (_, i) => {
        const base = pick(PATTERNS);
        const pattern = random() < 0.5 ? base : base.replace(/[a-z]$/u, (c) => `${c}${String(i % 7)}`);
        return compileGlob(pattern, { dot: true, nocase, windows: false });
      });
      const index = indexGlobs(globs, nocase);
      for (let p = 0; p < 50; p++) {
        const path = `/${Array.from({ length: 1 + Math.floor(random() * 6) }, () => pick(SEGMENTS)).join('/')}`;
        expect(index.first(path)?.pattern, path).toBe(firstMatch(globs, path, nocase)?.pattern);
      }
    }
  });
});
