import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode, runOracle } from '../cli/run-oracle.js';
import { built } from '../fixtures/built.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * The installed hook as Claude Code starts it (SPEC §11): `oracle hook claude-code` runs from the
 * bundles the build made (dist/hook), the headless half from V8's code cache, and with a policy
 * kept from the last call. Each shortcut is checked to be taken, and never to outlive what it
 * stands for: an edited policy is read at once.
 */
const BUNDLE = built('hook');

describe('the bundled hook', () => {
  let tree: TempTree;
  let home = '';
  let policy = '';
  let app = '';
  beforeAll(() => {
    tree = tempTree('oracle-hook-bundle-');
    home = tree.dir('home');
    app = tree.dir('projects/app');
    tree.file('projects/app/a.txt', 'a\n');
    policy = tree.file('policy.yaml', `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write] }\n`);
  });
  afterAll(() => {
    tree.dispose();
  });
  /** A Read through the command `oracle integrate` installs (or, `viaOracle`, through `oracle hook`). */
  const read = async (viaOracle = false): Promise<{ decision: string; reason: string }> => {
    const args = ['hook', 'claude-code', '--home', home, '--policy', policy];
    const run = await (viaOracle ? runOracle(args, payload()) : runNode([join(BUNDLE, 'oracle-hook.cjs'), ...args], payload()));
    expect(run.code).toBe(0);
    const out = (JSON.parse(run.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
    return { decision: out.permissionDecision, reason: out.permissionDecisionReason };
  };
  const payload = () =>
    JSON.stringify({ session_id: 's', cwd: app, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: join(app, 'a.txt') } });

  it('is built: the thin client, the headless bundle, and its code cache', () => {
    for (const file of ['oracle-hook.cjs', 'hook.js', 'headless.cjs', 'headless.cjs.cache']) expect(existsSync(join(BUNDLE, file)), file).toBe(true);
    // Nothing in the headless bundle may import(): V8 cannot run one from a code cache on Node 20.
    const headless = readFileSync(join(BUNDLE, 'headless.cjs'), 'utf8');
    expect(headless).not.toMatch(/\bimport\(/u);
    // zod's English messages only (scripts/bundle-hook.ts): its Hebrew locale's word for "string" is not carried.
    expect(headless).toContain('Invalid input');
    expect(headless).not.toContain('מחרוזת');
  });

  it('starts from the code cache the build made, and leaves it as it was', async () => {
    const cache = join(BUNDLE, 'headless.cjs.cache');
    const before = statSync(cache);
    expect((await read()).decision).toBe('allow');
    expect((await read(true)).decision).toBe('allow');
    // A cache V8 refused would have been written again (server/adapters/cached-script.ts).
    const after = statSync(cache);
    expect([after.mtimeMs, after.size]).toEqual([before.mtimeMs, before.size]);
  });

  it('keeps the policy it loaded, and reads an edited policy at once', async () => {
    expect((await read()).decision).toBe('allow');
    const kept = join(home, 'data', 'policy-cache.json');
    const entry = readFileSync(kept, 'utf8');
    expect((await read()).decision).toBe('allow');
    expect(readFileSync(kept, 'utf8')).toBe(entry); // a hit: nothing written
    writeFileSync(policy, readFileSync(policy, 'utf8').replace('[fs.read, fs.write]', '[fs.write]'));
    const denied = await read();
    expect(denied.decision).toBe('deny');
    expect(denied.reason).toContain('CAPABILITY_DENIED');
    expect(readFileSync(kept, 'utf8')).not.toBe(entry);
  });
});
