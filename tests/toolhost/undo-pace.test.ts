import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../server/app/runtime.js';
import { UndoFiles } from '../../server/adapters/agent/undo-files.js';
import { confirmChanges, keepChanges } from '../../server/toolhost/agent-changes.js';
import type { ToolhostEnv } from '../../server/toolhost/env.js';
import { applyUndo } from '../../server/toolhost/undo.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from './runtime-fixture.js';

/**
 * An undo's checks read whole trees and give way to other agents as they go (session 35): what
 * lands meanwhile must not break it. Another keep pruning the store must not take the copy the undo
 * is about to put back, and a HALT stops it before anything moves (review, session 35).
 */
describe('an undo that gives way while it checks', () => {
  let tree: TempTree;
  let runtime: Runtime;
  beforeAll(async () => {
    tree = tempTree('oracle-undo-pace-');
    runtime = await runtimeFor(tree, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\n`);
  });
  afterAll(async () => {
    await runtime.close();
    tree.dispose();
  });

  /** `rm -r name` kept for undo, then the agent's call run: the folder replaced by 3,000 files, and the call confirmed. */
  const changed = async (env: ToolhostEnv, name: string): Promise<string> => {
    const path = join(tree.root, 'projects', name);
    tree.file(`projects/${name}/big.bin`, 'A'.repeat(200_000));
    const kept = await keepChanges(env, { changes: [{ path, removes: true }], actionId: `ac_${name}`, call: `call-${name}`, summary: `rm -r ${name}` });
    if (!kept.ok) throw new Error(kept.reason);
    rmSync(path, { recursive: true });
    for (let d = 0; d < 30; d++) {
      mkdirSync(join(path, `d${String(d)}`), { recursive: true });
      for (let f = 0; f < 100; f++) writeFileSync(join(path, `d${String(d)}`, `f${String(f)}.txt`), `line ${String(f)}\n`.repeat(50));
    }
    expect(await confirmChanges(env, `call-${name}`)).toBe(true);
    return kept.id;
  };

  it('keeps a small change for undo without holding the gate for its fsyncs', async () => {
    // Claude Code's `cp`, `mv`, `sed -i`: each kept before it runs. Its record is written and synced
    // on libuv's pool, so other agents are answered meanwhile.
    const file = tree.file('projects/small.txt', 'one\n');
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    const kept = await keepChanges(runtime.toolhost.env, { changes: [{ path: file, removes: true }], actionId: 'ac_small', call: 'call-small', summary: 'sed -i small.txt' });
    expect(kept.ok).toBe(true);
    expect(turned, 'the event loop turned while the change was kept').toBe(true);
  });

  it('keeps the copy an undo is about to put back out of another keep’s pruning', async () => {
    // A store that holds one 200 kB copy: a second keep prunes the oldest.
    const env = { ...runtime.toolhost.env, gate: runtime.toolhost.env.gate, undo: UndoFiles.open(tree.dir('undo-small'), 300_000) };
    const id = await changed(env, 'a');
    const undo = applyUndo(id, env);
    await new Promise((resolve) => setImmediate(resolve));
    tree.file('projects/b/big.bin', 'B'.repeat(200_000));
    expect((await keepChanges(env, { changes: [{ path: join(tree.root, 'projects', 'b'), removes: true }], actionId: 'ac_b', call: 'call-b', summary: 'rm -r b' })).ok).toBe(true);
    expect(await undo).toMatchObject({ ok: true });
    expect(readFileSync(join(tree.root, 'projects', 'a', 'big.bin'), 'utf8')).toHaveLength(200_000);
  });

  it('stops before anything moves when HALT lands while it checks', async () => {
    const { env } = runtime.toolhost;
    const id = await changed(env, 'c');
    let halted = false;
    setImmediate(() => {
      halted = true;
    });
    expect((await applyUndo(id, env, () => halted)).error).toEqual({ code: 'HALTED', message: 'HALT stopped the undo before it changed anything' });
    expect(existsSync(join(tree.root, 'projects', 'c', 'd7', 'f7.txt'))).toBe(true);
    expect(existsSync(join(tree.root, 'projects', 'c', 'big.bin'))).toBe(false);
    // Lifted, the same undo applies.
    expect(await applyUndo(id, env)).toMatchObject({ ok: true });
    expect(existsSync(join(tree.root, 'projects', 'c', 'big.bin'))).toBe(true);
  });
});
