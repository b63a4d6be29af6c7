import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import type { CompiledPolicy } from '../../server/core/policy/compile.js';
import { treeVerdict } from '../../server/toolhost/tree-reach.js';
import { judgedListings } from '../../server/toolhost/sandbox-masks.js';
import { RACY_MS } from '../../server/adapters/agent/dir-listings.js';
import { runOracle } from '../cli/run-oracle.js';
import { testContext } from '../fixtures/context.js';
import { mcpHost, textOf } from '../fixtures/mcp-host.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * Moving, copying or deleting a whole folder may not change what the policy hides (helper-15,
 * session 27): deny_always patterns that name a file by its parent (`.docker/config.json`) do not
 * match the parent, so a renamed parent exposed its file and a folder moved onto `.claude`
 * planted a settings.json; read-only roots and anchored excludes inside a folder went with it.
 * Judged on a real file system, for the gate's own tools (MCP) and for Claude Code's Bash alike.
 */
const POLICY = (root: string): string => `
scopes:
  projects: { roots: [{ path: "${root}/p", mode: rw, exclude: ["ex/secret/**"] }] }
  locked: { roots: [{ path: "${root}/p/vendor/locked", mode: ro }] }
deny_always: ["**/.env", "**/.ssh/**", "**/.docker/config.json", "**/.claude/settings.json", "**/*.pem"]
principals:
  agents:
    mcp: { capabilities: [fs.read, fs.write, fs.delete] }
    claude-code: { capabilities: [fs.read, fs.write, fs.delete] }
`;

let tree: TempTree;
let p = '';

function layout(): void {
  tree.file('p/.docker/config.json', '{"auths":{"x":{"auth":"c2VjcmV0"}}}\n');
  tree.file('p/x/.env', 'TOKEN=1\n');
  tree.file('p/x/a.ts', 'a\n');
  tree.file('p/z/settings.json', '{"disableAllHooks":true}\n');
  tree.file('p/src/a.ts', 'a\n');
  tree.file('p/vendor/locked/lib.txt', 'locked\n');
  tree.file('p/ex/secret/s.txt', 'excluded\n');
  tree.file('p/node_modules/pkg/test/key.pem', 'fixture\n');
  tree.file('p/node_modules/pkg/index.js', 'x\n');
  tree.file('p/links/real.json', '{}\n');
  tree.file('p/dist/app/config/.env', 'TOKEN=2\n');
  tree.file('p/pkgs/a/node_modules/x/test/key.pem', 'fixture\n');
  tree.file('p/pkgs/a/index.ts', 'a\n');
  symlinkSync(join(p, 'links', 'real.json'), join(p, 'links', 'settings.json'));
  // Relative links that stay inside the project where they are, and lead out of it (or into
  // what the policy hides) once moved two folders up.
  tree.dir('p/d1/d2');
  tree.dir('p/d1/d3');
  tree.file('p/d1/keys/.env', 'TOKEN=3\n');
  symlinkSync('../..', join(p, 'd1', 'd2', 'up'));
  symlinkSync('../keys', join(p, 'd1', 'd2', 'keys'));
}

beforeAll(() => {
  tree = tempTree('oracle-tree-change-');
  p = tree.dir('p');
  writeFileSync(join(tree.root, 'policy.yaml'), POLICY(tree.root));
  layout();
});
afterAll(() => {
  tree.dispose();
});

describe('what a whole-folder change does to what the policy hides', () => {
  let gate: CompiledPolicy;
  beforeAll(() => {
    gate = testContext(POLICY(tree.root)).gate;
  });
  const verdict = async (change: Parameters<typeof treeVerdict>[1]) => (await treeVerdict(gate, change)).kind;

  it('refuses a move or copy that makes a hidden file visible, and one that lands a visible file where the policy hides', async () => {
    expect(await verdict({ kind: 'move', from: `${p}/.docker`, to: [`${p}/docker`] })).toBe('refused');
    expect(await verdict({ kind: 'copy', from: `${p}/.docker`, to: [`${p}/d2`] })).toBe('refused');
    expect(await verdict({ kind: 'move', from: `${p}/z`, to: [`${p}/.claude`] })).toBe('refused');
    // A link plants as well as a file.
    expect(await verdict({ kind: 'move', from: `${p}/links`, to: [`${p}/.claude`] })).toBe('refused');
    // An anchored exclude does not follow its folder to a new name.
    expect(await verdict({ kind: 'move', from: `${p}/ex`, to: [`${p}/ex2`] })).toBe('refused');
    // A destination that may yet be a folder is judged both ways.
    expect(await verdict({ kind: 'move', from: `${p}/z`, to: [`${p}/new`, `${p}/.claude/z`] })).toBe('ok');
    expect(await verdict({ kind: 'copy', from: `${p}/z`, to: [`${p}/.claude`, `${p}/.claude/z`] })).toBe('refused');
  });

  it('judges a relative link moved or copied as the link it becomes where it lands', async () => {
    // d1/d2/up is `../..`: the project from there, the folder above the project from p/.
    expect(await verdict({ kind: 'move', from: `${p}/d1/d2/up`, to: [`${p}/up`] })).toBe('unknown');
    expect(await verdict({ kind: 'copy', from: `${p}/d1/d2/up`, to: [`${p}/up`] })).toBe('unknown');
    expect(await verdict({ kind: 'move', from: `${p}/d1/d2/up`, to: [`${p}/d1/d3/up`] })).toBe('ok');
    // inside a folder moved up a level: d2/up would lead out of the project
    expect(await verdict({ kind: 'move', from: `${p}/d1/d2`, to: [`${p}/d2`] })).toBe('unknown');
    // ../keys from p/ would be p/../keys: outside; from p/d1/d3 it stays p/d1/keys
    expect(await verdict({ kind: 'move', from: `${p}/d1/d2/keys`, to: [`${p}/d1/d3/keys`] })).toBe('ok');
  });

  it('lets a folder move with what stays hidden where it lands, and ordinary folders move and copy', async () => {
    expect(await verdict({ kind: 'move', from: `${p}/x`, to: [`${p}/y`] })).toBe('ok');
    expect(await verdict({ kind: 'copy', from: `${p}/src`, to: [`${p}/src2`] })).toBe('ok');
    expect(await verdict({ kind: 'move', from: `${p}/src/a.ts`, to: [`${p}/.claude/settings.json`] })).toBe('ok'); // a file: the decision judged both paths
  });

  it('refuses deleting a folder that holds a hidden file or a read-only root, but not a package’s own fixtures', async () => {
    expect(await verdict({ kind: 'delete', path: `${p}/x` })).toBe('refused');
    expect(await verdict({ kind: 'delete', path: `${p}/vendor` })).toBe('refused');
    expect(await verdict({ kind: 'move', from: `${p}/vendor`, to: [`${p}/vendor2`] })).toBe('refused');
    expect(await verdict({ kind: 'delete', path: `${p}/node_modules` })).toBe('ok');
    expect(await verdict({ kind: 'delete', path: `${p}/src` })).toBe('ok');
    // A package folder with its own node_modules goes whole; a folder that only sits below one named `dist` is no dependency.
    expect(await verdict({ kind: 'delete', path: `${p}/pkgs/a` })).toBe('ok');
    expect(await verdict({ kind: 'delete', path: `${p}/dist/app/config` })).toBe('refused');
    // Build output is not a package's: a `dist` (or a whole project named build) holding .env is refused.
    expect(await verdict({ kind: 'delete', path: `${p}/dist` })).toBe('refused');
    // A fixture may go, never become visible.
    expect(await verdict({ kind: 'move', from: `${p}/node_modules/pkg/test`, to: [`${p}/node_modules/pkg/fixtures`] })).toBe('ok');
  });

  it('finds a hidden file written into a folder after an earlier check kept its listing (session 35)', async () => {
    tree.file('p/kept/a/b/c.ts', 'c\n');
    tree.file('p/kept/a/d.ts', 'd\n');
    // Only a folder unchanged for RACY_MS is kept: wait that out, as a project not edited this second.
    await new Promise((resolve) => setTimeout(resolve, RACY_MS + 500));
    const listings = judgedListings(gate);
    expect(await verdict({ kind: 'delete', path: `${p}/kept` })).toBe('ok');
    const first = listings.work;
    expect(await verdict({ kind: 'delete', path: `${p}/kept` })).toBe('ok');
    // Three folders looked at again, no entry judged again.
    expect(listings.work - first).toBe(3);
    tree.file('p/kept/a/b/.env', 'TOKEN=4\n');
    expect(await treeVerdict(gate, { kind: 'delete', path: `${p}/kept` })).toMatchObject({ kind: 'refused', reason: expect.stringContaining('p/kept/a/b/.env') as unknown });
  }, 10_000);

  it('answers unknown, never ok, when the check is stopped (HALT, or the caller gone)', async () => {
    const stopped = AbortSignal.abort();
    expect(await treeVerdict(gate, { kind: 'delete', path: `${p}/src` }, { signal: stopped })).toMatchObject({ kind: 'unknown' });
    expect(await treeVerdict(gate, { kind: 'delete', path: `${p}/src` })).toEqual({ kind: 'ok' });
  });

  it('refuses writing into a read-only root below where a copy lands', async () => {
    expect(await verdict({ kind: 'copy', from: `${p}/src`, to: [`${p}/vendor`] })).toBe('refused');
  });
});

describe('through the gate’s own tools and through Claude Code’s Bash', () => {
  let running: Running;
  let client: Client;
  let home = '';
  beforeAll(async () => {
    home = tree.dir('oracle-home');
    running = await startServer({ home, policy: join(tree.root, 'policy.yaml'), port: 0 });
    ({ client } = await mcpHost(['--home', home]));
  });
  afterAll(async () => {
    await client.close();
    await running.close();
  });
  beforeEach(() => {
    expect(existsSync(`${p}/.docker/config.json`)).toBe(true);
  });

  it('fs_move of a parent folder that would expose or plant is refused, and nothing moved', async () => {
    const exposed = await client.callTool({ name: 'fs_move', arguments: { from: `${p}/.docker`, to: `${p}/docker` } });
    expect(exposed.isError).toBe(true);
    expect(textOf(exposed)).toContain('.docker/config.json');
    expect(existsSync(`${p}/docker`)).toBe(false);
    const planted = await client.callTool({ name: 'fs_move', arguments: { from: `${p}/z`, to: `${p}/.claude` } });
    expect(planted.isError).toBe(true);
    expect(existsSync(`${p}/.claude`)).toBe(false);
    expect(readFileSync(`${p}/z/settings.json`, 'utf8')).toContain('disableAllHooks');
  });

  it('fs_delete of a folder holding a read-only root is refused at the decision (no card for what could never run), and nothing went', async () => {
    const deleted = await client.callTool({ name: 'fs_delete', arguments: { path: `${p}/vendor` } });
    expect(deleted.isError).toBe(true);
    expect(textOf(deleted)).toContain('read-only root');
    expect(readFileSync(`${p}/vendor/locked/lib.txt`, 'utf8')).toBe('locked\n');
  });

  const hook = async (command: string) => {
    // The command hook deciding on its own (no gate with its home), as when no `oracle serve` runs.
    const run = await runOracle(['hook', 'claude-code', '--home', tree.dir('hook-home'), '--policy', join(tree.root, 'policy.yaml')], JSON.stringify({ session_id: 's', cwd: p, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `t-${command}` }));
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
  };

  it('Claude Code’s mv and cp -r of such folders are denied, while an ordinary rename runs', async () => {
    for (const command of ['mv .docker docker', 'cp -r .docker d2', 'mv z .claude', 'mv ex ex2']) {
      const answer = await hook(command);
      expect(answer.permissionDecision, `${command}: ${answer.permissionDecisionReason}`).toBe('deny');
      expect(answer.permissionDecisionReason).toContain('PATH_DENY_ALWAYS');
    }
    expect((await hook('mv src lib')).permissionDecision).toBe('allow');
  });
});
