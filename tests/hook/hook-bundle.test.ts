import { copyFileSync, existsSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
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
    // Only the parts of zod ORACLE uses: its schemas are written against `import * as z`, whose
    // unused exports the bundler drops (`import { z }` would carry all of zod, its ~50 message
    // locales among them: the Hebrew word for "string" is not carried).
    expect(headless).toContain('Invalid input');
    expect(headless).not.toContain('מחרוזת');
    // The YAML parser is loaded from node_modules when a policy is parsed, not carried (its error class is its own).
    expect(headless).not.toContain('YAMLParseError');
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

  it('keeps one code cache for every kind of call: a Bash call, which changes V8 flags for the parser, never writes it', async () => {
    // A copy of the install, so the cache can start missing without touching the build's own.
    const install = tree.dir('install');
    const hook = tree.dir('install/dist/hook');
    for (const file of readdirSync(BUNDLE)) if (file !== 'headless.cjs.cache') copyFileSync(join(BUNDLE, file), join(hook, file));
    copyFileSync(join(BUNDLE, '..', '..', 'package.json'), join(install, 'package.json'));
    symlinkSync(join(BUNDLE, '..', '..', 'node_modules'), join(install, 'node_modules'));
    const cache = join(hook, 'headless.cjs.cache');
    const call = async (tool: string, input: object): Promise<string> => {
      const run = await runNode([join(hook, 'oracle-hook.cjs'), 'hook', 'claude-code', '--home', home, '--policy', policy], JSON.stringify({ session_id: 's', cwd: app, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input }));
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision;
    };
    const bash = () => call('Bash', { command: 'ls' });
    const readA = () => call('Read', { file_path: join(app, 'a.txt') });
    writeFileSync(policy, readFileSync(policy, 'utf8').replace('[fs.write]', '[fs.read, fs.write]'));
    expect(await bash()).toBe('allow');
    expect(existsSync(cache)).toBe(false);
    expect(await readA()).toBe('allow');
    const made = statSync(cache);
    // V8 takes it on either kind of call: one it refused would be written again by the Read.
    expect(await bash()).toBe('allow');
    expect(await readA()).toBe('allow');
    const after = statSync(cache);
    expect([after.mtimeMs, after.size]).toEqual([made.mtimeMs, made.size]);
    rmSync(install, { recursive: true, force: true });
  });
});
