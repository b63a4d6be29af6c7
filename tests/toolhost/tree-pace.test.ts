import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../server/app/runtime.js';
import { judgedListings } from '../../server/toolhost/sandbox-masks.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from './runtime-fixture.js';

/**
 * The gate's own actions over a whole tree (session 35): an fs.search through thousands of files
 * and the check of what deleting a folder takes with it give way to other agents as they go, and
 * a HALT that lands meanwhile stops them. Before, each ran in one go on the gate's thread: a
 * search through 20,000 files held every other agent's answer for 0.4 s, and a HALT could only
 * land after it.
 */
describe('long tree actions of the gate', () => {
  let tree: TempTree;
  let runtime: Runtime;
  const line = 'const value = compute(alpha, beta); // a line of a project file\n'.repeat(64);

  let homes = 0;
  beforeAll(() => {
    tree = tempTree('oracle-pace-');
    for (let d = 0; d < 30; d++) {
      const dir = tree.dir(`projects/app/src/d${String(d)}`);
      for (let f = 0; f < 100; f++) writeFileSync(join(dir, `f${String(f)}.ts`), line);
    }
    tree.file('projects/app/a.txt', 'a');
  });
  afterAll(() => {
    tree.dispose();
  });
  // Each test its own home: a HALT persists in it.
  const open = async (): Promise<Runtime> => {
    homes += 1;
    runtime = await runtimeFor(tree, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\ndeny_always: [.env]\n`, { home: `home${String(homes)}` });
    return runtime;
  };
  afterEach(async () => {
    await runtime.close();
  });
  /** A delete of the whole tree, at its decision's first pause: the check pauses for others every few thousand entries, mid-walk. */
  const deleteMidWalk = async () => {
    const listings = judgedListings(runtime.toolhost.env.gate);
    const before = listings.work;
    const removal = runtime.run({ tool: 'fs.delete', args: { path: `${tree.root}/projects/app/src` } });
    for (let turns = 0; listings.work === before && turns < 100_000; turns++) await new Promise((resolve) => setImmediate(resolve));
    return { listings, before, removal };
  };

  it('answers another agent while a search goes through 3,000 files, and stops the search on HALT', async () => {
    runtime = await open();
    let settled = false;
    const search = runtime.run({ tool: 'fs.search', args: { path: `${tree.root}/projects/app`, text: 'not in any file' } }).finally(() => (settled = true));
    const read = await runtime.run({ tool: 'fs.read', args: { path: `${tree.root}/projects/app/a.txt` } });
    expect(read).toMatchObject({ executed: true, output: 'a' });
    expect(settled, 'the read was answered while the search was still going').toBe(false);
    await runtime.halt('stop the search', 'cli');
    expect((await search).error).toMatchObject({ code: 'HALTED', message: expect.stringMatching(/HALT stopped the search/u) as unknown });
  });

  it('stops a search its caller withdrew, and records it as cancelled', async () => {
    runtime = await open();
    const withdraw = new AbortController();
    let settled = false;
    const search = runtime.submit({ tool: 'fs.search', args: { path: `${tree.root}/projects/app`, text: 'not in any file' } }, 0, undefined, withdraw.signal).finally(() => (settled = true));
    expect((await runtime.run({ tool: 'fs.read', args: { path: `${tree.root}/projects/app/a.txt` } })).executed).toBe(true);
    expect(settled, 'the search was still going').toBe(false);
    withdraw.abort();
    const result = await search;
    expect(result.error?.code).toBe('CANCELLED');
    const log = readdirSync(join(runtime.gate.home, 'logs', 'audit')).flatMap((f) => readFileSync(join(runtime.gate.home, 'logs', 'audit', f), 'utf8').trimEnd().split('\n'));
    expect(log.map((l) => JSON.parse(l) as { kind: string; action_id?: string }).filter((r) => r.action_id === result.action_id).map((r) => r.kind)).toEqual(['decision', 'dispatched', 'cancelled']);
  });

  it('does not decide a folder delete by a walk made under a policy a reload replaced meanwhile', async () => {
    runtime = await open();
    const { removal } = await deleteMidWalk();
    writeFileSync(join(tree.root, `home${String(homes)}-policy.yaml`), `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\ndeny_always: [.env, f7.ts]\n`);
    expect((await runtime.reloadPolicy('cli')).ok).toBe(true);
    expect(await removal).toMatchObject({ decision: 'deny', code: 'PATH_UNRESOLVABLE', reasons: [expect.stringMatching(/a new policy/u)] });
  });

  it('decides a folder delete by a HALT that lands while the folder is being checked', async () => {
    runtime = await open();
    const { listings, before, removal } = await deleteMidWalk();
    expect(listings.work, 'the delete is checked through the judged listings').toBeGreaterThan(before);
    await runtime.halt('stop the delete', 'cli');
    expect(await removal).toMatchObject({ decision: 'deny', code: 'HALTED', executed: false });
    // The walk stopped at HALT rather than judging the other 3,000 entries first.
    expect(listings.work - before).toBeLessThan(3000);
    expect(existsSync(`${tree.root}/projects/app/src/d0/f0.ts`)).toBe(true);
  });
});
