import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILD_RECORD, staleBuild, writeBuildRecord } from '../../scripts/build-inputs.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/** The record tests/fixtures/built.ts checks before a test runs the built command (issue 18). */
describe('what dist/ was built from', () => {
  let tree: TempTree | undefined;
  afterEach(() => tree?.dispose());
  const repo = (): TempTree => {
    tree = tempTree('oracle-build-inputs-');
    tree.file('server/cli/halt.ts', 'export const halt = 1;\n');
    tree.file('server/cli/halt.test.ts', 'test\n');
    tree.file('package.json', '{}\n');
    return tree;
  };

  it('matches right after the build', () => {
    const t = repo();
    writeBuildRecord(t.root);
    expect(staleBuild(t.root)).toBeUndefined();
  });

  it('names the source that changed since, and says to build', () => {
    const t = repo();
    writeBuildRecord(t.root);
    writeFileSync(join(t.root, 'server', 'cli', 'halt.ts'), 'export const halt = 0;\n');
    expect(staleBuild(t.root)).toBe('dist/ is older than the sources: server/cli/halt.ts changed since the last build; run `npm run build`');
  });

  it('counts a new or removed source, and ignores tests (they are not built)', () => {
    const t = repo();
    writeBuildRecord(t.root);
    writeFileSync(join(t.root, 'server', 'cli', 'halt.test.ts'), 'changed\n');
    expect(staleBuild(t.root)).toBeUndefined();
    t.file('shared/new.ts', 'export {};\n');
    rmSync(join(t.root, 'package.json'));
    expect(staleBuild(t.root)).toBe('dist/ is older than the sources: package.json changed since the last build and 1 more; run `npm run build`');
  });

  it('refuses a dist/ without a record (a build that stopped halfway clears it first)', () => {
    const t = repo();
    expect(staleBuild(t.root)).toBe(`dist/ has no record of what it was built from (${BUILD_RECORD}): run \`npm run build\``);
  });
});
