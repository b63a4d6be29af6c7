import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runOracle } from './run-oracle.js';

/**
 * `oracle check` through the real built command (SPEC §12): 10,000 JSON lines in, 10,000
 * decisions out in the same order, a malformed line answered with a deny line, exit 0.
 */
describe('oracle check', () => {
  let tree: TempTree;
  let policy = '';
  let home = '';

  beforeAll(() => {
    tree = tempTree('oracle-cli-');
    tree.file('projects/app/src/a.ts');
    tree.file('projects/app/.env');
    tree.file('outside/secret');
    tree.link('projects/app/out', `${tree.root}/outside`);
    home = tree.dir('home');
    policy = join(tree.root, 'policy.yaml');
    writeFileSync(
      policy,
      `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\ndeny_always: ["**/*.env", "**/.env"]\n` +
        `programs:\n  git: { subcommands: { allow: [status], confirm: [push] } }\negress: { allow: [{ host: github.com, why: x }] }\n`,
    );
  });
  afterAll(() => {
    tree.dispose();
  });

  it('answers 10,000 actions in order and correctly, with deny lines for malformed ones', async () => {
    const app = `${tree.root}/projects/app`;
    // Each template: the action for line i, and what the answer must be.
    const templates: ((i: number) => [unknown, string])[] = [
      (i) => [{ tool: 'fs.read', args: { path: `${app}/src/a.ts` }, session: `s${i}` }, 'allow:T0'],
      (i) => [{ tool: 'fs.write', args: { path: `${app}/src/f${i}.ts`, content: String(i) } }, 'allow:T1'],
      (i) => [{ tool: 'fs.write', args: { path: `f${i}.ts`, content: '' }, cwd: app, tainted: true }, 'needs-approval:T2'],
      (i) => [{ tool: 'fs.read', args: { path: `${app}/.env` }, session: `s${i}` }, 'deny:PATH_DENY_ALWAYS'],
      (i) => [{ tool: 'fs.read', args: { path: `${app}/out/secret` }, session: `s${i}` }, 'deny:PATH_OUTSIDE_SCOPE'],
      (i) => [{ tool: 'fs.read', args: { path: `${tree.root}/projects-evil/${i}` } }, 'deny:PATH_OUTSIDE_SCOPE'],
      // git status prints names and states only: a read (core/decide/git-read-only.ts)
      (i) => [{ tool: 'exec.run', args: { program: 'git', args: ['status'], cwd: app }, session: `s${i}` }, 'allow:T0'],
      (i) => [{ tool: 'exec.run', args: { program: 'git', args: ['push', 'origin', `b${i}`], cwd: app } }, 'needs-approval:T2'],
      (i) => [{ tool: 'net.fetch', args: { url: `https://evil.example/${i}` } }, 'deny:EGRESS_DENIED'],
      (i) => [{ tool: 'input.synth', args: { text: String(i) } }, 'needs-approval:T3'],
      (i) => [{ tool: `no.such.tool${i}`, args: {} }, 'deny:TOOL_UNKNOWN'],
      (i) => [`{"tool": "fs.read", "args": {${i}`, 'deny:INPUT_INVALID'],
      () => ['', 'deny:INPUT_INVALID'],
      (i) => [[i], 'deny:INPUT_INVALID'],
    ];
    const expected: string[] = [];
    const lines: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const template = templates[i % templates.length];
      if (template === undefined) throw new Error('template');
      const [action, want] = template(i);
      lines.push(typeof action === 'string' ? action : JSON.stringify(action));
      expected.push(want);
    }
    const run = await runOracle(['check', '--policy', policy, '--home', home], lines.join('\n') + '\n');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = run.stdout.trimEnd().split('\n');
    expect(out).toHaveLength(10_000);
    const got = out.map((line) => {
      const d = JSON.parse(line) as { decision: string; tier: string; code: string | null };
      return d.decision === 'deny' ? `deny:${d.code ?? ''}` : `${d.decision}:${d.tier}`;
    });
    expect(got).toEqual(expected);
    // Order: line 1 echoes its own canonical arguments.
    expect(JSON.parse(out[1] ?? '{}')).toMatchObject({ tool: 'fs.write', args: { path: `${app}/src/f1.ts`, content: '1' } });
    const malformed = JSON.parse(out[11] ?? '{}') as { reasons: string[]; tool: unknown };
    expect(malformed.reasons[0]).toMatch(/^the line is not JSON/u);
    expect(malformed.tool).toBeNull();
  });

  it('answers in read-only mode with a loud reason when the policy is invalid', async () => {
    const bad = join(tree.root, 'bad.yaml');
    writeFileSync(bad, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms: { git: { bogus: true } }\n`);
    const input = [
      { tool: 'fs.read', args: { path: `${tree.root}/projects/app/src/a.ts` } },
      { tool: 'fs.write', args: { path: `${tree.root}/projects/app/src/a.ts`, content: '' } },
    ];
    const run = await runOracle(['check', '--policy', bad, '--home', home], input.map((a) => JSON.stringify(a)).join('\n'));
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('READ-ONLY MODE');
    expect(run.stderr).toContain('line 3');
    const [read, write] = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { decision: string; code: string | null });
    expect(read?.decision).toBe('allow');
    expect(write?.code).toBe('POLICY_READ_ONLY');
  });

  it('answers an over-long line and an invalid UTF-8 line with deny lines, and keeps going', async () => {
    const ok = JSON.stringify({ tool: 'fs.read', args: { path: `${tree.root}/projects/app/src/a.ts` } });
    const input = Buffer.concat([Buffer.from(`${ok}\n{"tool":"${'x'.repeat(3_000_000)}"}\n`), Buffer.from([0xff, 0xfe, 0x0a]), Buffer.from(`${ok}\r\n`)]);
    const run = await runOracle(['check', '--policy', policy, '--home', home], input.toString('latin1'), undefined, input);
    expect(run.code).toBe(0);
    const out = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { decision: string; reasons: string[] });
    expect(out.map((d) => d.decision)).toEqual(['allow', 'deny', 'deny', 'allow']);
    expect(out[1]?.reasons[0]).toBe('the line is longer than 1048576 bytes');
    expect(out[2]?.reasons[0]).toBe('the line is not valid UTF-8');
  });

  it('never lets an agent write the policy in force, even inside a scope', async () => {
    const inScope = join(tree.root, 'projects', 'app', 'oracle-policy.yaml');
    writeFileSync(inScope, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\n`);
    const run = await runOracle(['check', '--policy', inScope, '--home', home], JSON.stringify({ tool: 'fs.write', args: { path: inScope, content: 'scopes: {}' } }));
    expect(JSON.parse(run.stdout)).toMatchObject({ decision: 'deny', code: 'PATH_DENY_ALWAYS', rule: 'deny_always.policy_file' });
  });

  it('denies with a clear code when the policy file does not exist', async () => {
    const run = await runOracle(['check', '--policy', join(tree.root, 'missing.yaml'), '--home', home], '{"tool":"fs.read","args":{"path":"/"}}\n');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('ENOENT');
    expect(JSON.parse(run.stdout)).toMatchObject({ decision: 'deny', code: 'PATH_OUTSIDE_SCOPE' });
  });

  it('answers deny for everything while the home is HALTed, and allows again after resume', async () => {
    const haltedHome = tree.dir('halted-home');
    const line = `${JSON.stringify({ tool: 'fs.read', args: { path: `${tree.root}/projects/app/src/a.ts` } })}\n`;
    expect(JSON.parse((await runOracle(['check', '--policy', policy, '--home', haltedHome], line)).stdout)).toMatchObject({ decision: 'allow' });
    expect((await runOracle(['halt', '--reason', 'stop', '--home', haltedHome, '--policy', policy])).code).toBe(0);
    const halted = await runOracle(['check', '--policy', policy, '--home', haltedHome], line);
    expect(JSON.parse(halted.stdout)).toMatchObject({ decision: 'deny', code: 'HALTED' });
    expect(halted.stderr).toContain('HALTED');
    expect((await runOracle(['resume', '--home', haltedHome, '--policy', policy])).code).toBe(0);
    expect(JSON.parse((await runOracle(['check', '--policy', policy, '--home', haltedHome], line)).stdout)).toMatchObject({ decision: 'allow' });
  });
});

describe('oracle policy check', () => {
  it('prints the digest and every error with its line, exit 1 when invalid', async () => {
    const tree = tempTree('oracle-policy-');
    try {
      const file = tree.file('p.yaml', 'scopes:\n  a: { roots: [{ path: /x, mode: rx }] }\nwhat: 1\n');
      const run = await runOracle(['policy', 'check', file]);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/^digest: sha256:[0-9a-f]{64}$/mu);
      expect(run.stdout).toContain(`error: ${file}:2:`);
      expect(run.stdout).toContain(`error: ${file}:3:1: unknown key \`what\``);
      const good = tree.file('g.yaml', 'scopes: {}\n');
      const ok = await runOracle(['policy', 'check', good]);
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain('mode: normal');
    } finally {
      tree.dispose();
    }
  });

  it('validates the shipped default policy and the design document example', async () => {
    const shipped = await runOracle(['policy', 'check']);
    expect(shipped.code).toBe(0);
    expect(shipped.stdout).not.toContain('principals.agents');
    const seed = await runOracle(['policy', 'check', 'config/examples/seed-001.yaml']);
    expect(seed.code).toBe(0);
    expect(seed.stdout).toContain('warning:');
    // The seed's shape has no principals: the hook and the MCP server would be denied everything.
    expect(seed.stdout).toContain('warning: no `principals.agents.claude-code`: every call through `oracle hook claude-code` (Claude Code) is denied');
    expect(seed.stdout).toContain('warning: no `principals.agents.mcp`');
    // And a call that meets it says how to mend it.
    const denied = await runOracle(['check', '--policy', 'config/examples/seed-001.yaml'], `${JSON.stringify({ tool: 'fs.read', args: { path: '/x' }, agent: 'claude-code' })}\n`);
    expect(denied.stdout).toContain('the policy has no `principals.agents.claude-code`');
  });

  it('refuses unknown commands and options with usage and exit 2', async () => {
    expect((await runOracle(['frobnicate'])).code).toBe(2);
    expect((await runOracle(['check', '--bogus'])).code).toBe(2);
  });
});
