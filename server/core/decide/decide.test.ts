import { describe, expect, it } from 'vitest';
import { testContext } from '../../../tests/fixtures/context.js';
import { memoryReader } from '../../../tests/fixtures/memory-fs.js';
import { decide, evaluate } from './decide.js';

const reader = memoryReader({ '/p/app/a.ts': 'file', '/s/x': 'file', '/ro/doc.md': 'file' });
const POLICY = `
scopes:
  projects: { roots: [{ path: /p, mode: rw }] }
  scratch: { roots: [{ path: /s, mode: rw }] }
  docs: { roots: [{ path: /ro, mode: ro }] }
programs:
  git: { subcommands: { allow: [status], confirm: [push], deny: ["push --force"] } }
  python3: { allow_args_matching: ["-m pytest *", "--test* -q", "-m unittest*"] }
  make: {}
egress: { allow: [{ host: github.com, why: code }], default: confirm }
tiers:
  - { tool: fs.write, path: "**/package.json", tier: T2, why: scripts run later }
  - { tool: exec.run, program: git, tier: T2 }
principals:
  agents:
    reader: { capabilities: [fs.read] }
`;
const pins = { git: '/usr/bin/git', python3: '/usr/bin/python3', make: '/usr/bin/make' };
const ctx = testContext(POLICY, { reader, pins, cwd: '/p/app' });

describe('decide', () => {
  it('reports the rule that fired and its reasons', () => {
    expect(decide({ tool: 'fs.read', args: { path: 'a.ts' } }, ctx)).toEqual({
      decision: 'allow',
      tier: 'T0',
      approver: null,
      code: null,
      rule: 'scopes.projects.roots[0]',
      reasons: ['fs.read reads in scope projects'],
    });
  });

  it('applies policy tier rules, first match, after the built-in table', () => {
    const d = decide({ tool: 'fs.write', args: { path: 'package.json', content: '{}' } }, ctx);
    expect(d).toMatchObject({ decision: 'needs-approval', tier: 'T2', approver: 'any-device', rule: 'tiers[0]' });
    expect(d.reasons.at(-1)).toBe('tiers[0] sets T2: scripts run later');
    expect(decide({ tool: 'exec.run', args: { program: 'git', args: ['status'] } }, ctx).rule).toBe('tiers[1]');
  });

  it('judges argv by allow_args_matching and confirms programs without a grammar', () => {
    expect(decide({ tool: 'exec.run', args: { program: 'python3', args: ['-m', 'pytest', '-k', 'x y'] } }, ctx)).toMatchObject({ tier: 'T1', rule: 'programs.python3.allow_args_matching[0]' });
    expect(decide({ tool: 'exec.run', args: { program: 'python3', args: ['-c', 'import os'] } }, ctx).code).toBe('PROGRAM_ARGS_REFUSED');
    // `*` inside a token that is not the last stays inside it: `--test*` cannot swallow `-e <code>`
    expect(decide({ tool: 'exec.run', args: { program: 'python3', args: ['--test-only', '-e', 'x'] } }, ctx).code).toBe('PROGRAM_ARGS_REFUSED');
    expect(decide({ tool: 'exec.run', args: { program: 'python3', args: ['--test-only', '-q'] } }, ctx).tier).toBe('T1');
    // glued to the last word it also admits further arguments (SPEC §12, the seed's `-m pytest*`)
    expect(decide({ tool: 'exec.run', args: { program: 'python3', args: ['-m', 'unittest', '-v', 'tests'] } }, ctx)).toMatchObject({ tier: 'T1', rule: 'programs.python3.allow_args_matching[2]' });
    expect(decide({ tool: 'exec.run', args: { program: 'python3', args: ['-m', 'unittest'] } }, ctx).tier).toBe('T1');
    expect(decide({ tool: 'exec.run', args: { program: 'python3', args: ['-m'] } }, ctx).code).toBe('PROGRAM_ARGS_REFUSED');
    expect(decide({ tool: 'exec.run', args: { program: 'make', args: ['all'] } }, ctx)).toMatchObject({ tier: 'T2', rule: 'programs.make' });
  });

  it('refuses an unknown program by default, and makes it a person’s call under programs.default: confirm', () => {
    expect(decide({ tool: 'exec.run', args: { program: 'sort', args: ['a.ts'] } }, ctx)).toMatchObject({ decision: 'deny', code: 'PROGRAM_UNKNOWN' });
    const confirming = testContext(POLICY.replace('programs:\n', 'programs:\n  default: confirm\n'), { reader, pins, cwd: '/p/app' });
    const e = evaluate({ tool: 'exec.run', args: { program: 'sort', args: ['a.ts'] } }, confirming);
    expect(e.decision).toMatchObject({ decision: 'needs-approval', tier: 'T2', rule: 'programs.default' });
    // never pinned, so ORACLE's own exec.run has nothing to run; the card shows that
    expect(e.args).toMatchObject({ program: 'sort', program_path: null });
    // the argv is still read as paths, and a path still decides first
    expect(decide({ tool: 'exec.run', args: { program: 'sort', args: ['/etc/passwd'] } }, confirming).decision).not.toBe('allow');
    expect(decide({ tool: 'exec.run', args: { program: '/tmp/x/sort', args: [] } }, confirming).code).toBe('PROGRAM_UNKNOWN');
  });

  it('reports the pinned program path in the canonical arguments', () => {
    const e = evaluate({ tool: 'exec.run', args: { program: 'python3', args: ['-m', 'pytest'] } }, ctx);
    expect(e.args).toMatchObject({ program: 'python3', program_path: '/usr/bin/python3', args: ['-m', 'pytest'], timeout: 60 });
  });

  it('confirms unlisted hosts when egress.default is confirm', () => {
    expect(decide({ tool: 'net.fetch', args: { url: 'https://example.org/' } }, ctx)).toMatchObject({ tier: 'T2', rule: 'egress.default' });
    expect(decide({ tool: 'net.fetch', args: { url: 'https://github.com/' } }, ctx)).toMatchObject({ tier: 'T1', rule: 'egress.allow[0]' });
  });

  it('tiers deletes by scope: scratch is undoable, projects wait for a person', () => {
    expect(decide({ tool: 'fs.delete', args: { path: '/s/x' } }, ctx).tier).toBe('T1');
    expect(decide({ tool: 'fs.delete', args: { path: '/p/app/a.ts' } }, ctx).tier).toBe('T2');
  });

  it('says what was read when taint escalates, and never runs T3 planned from it', () => {
    const d = decide({ tool: 'fs.write', args: { path: 'b.ts', content: 'x' }, provenance: [{ kind: 'local_foreign', source: 'node_modules/foo/README.md' }] }, ctx);
    expect(d).toMatchObject({ decision: 'needs-approval', tier: 'T2' });
    expect(d.reasons.at(-1)).toBe("proposed after reading node_modules/foo/README.md (content from outside the person's projects), so T1 becomes T2: a person decides");
    expect(decide({ tool: 'input.synth', args: { text: 'x' }, tainted: true }, ctx)).toMatchObject({ decision: 'deny', code: 'TIER_T4' });
    // user and local_trusted content do not taint
    expect(decide({ tool: 'fs.write', args: { path: 'b.ts', content: 'x' }, provenance: 'local_trusted' }, ctx).tier).toBe('T1');
  });

  it('keeps taint in the session: runtime state taints every later action', () => {
    const tainted = testContext(POLICY, { reader, pins, cwd: '/p/app', runtime: { tainted: true, provenance: [{ kind: 'external', source: 'https://x.test/' }] } });
    const d = decide({ tool: 'net.fetch', args: { url: 'https://github.com/' } }, tainted);
    expect(d).toMatchObject({ decision: 'needs-approval', tier: 'T2' });
    expect(d.reasons.at(-1)).toContain('proposed after reading https://x.test/');
    // The request naming what the session already holds says it once.
    const again = decide({ tool: 'net.fetch', args: { url: 'https://github.com/' }, provenance: [{ kind: 'external', source: 'https://x.test/' }] }, tainted);
    expect(again.reasons.at(-1)).toBe("proposed after reading https://x.test/ (content from outside the person's projects), so T1 becomes T2: a person decides");
    // A read is not bumped, and says so rather than `T0 → T0`.
    const read = decide({ tool: 'fs.read', args: { path: '/p/app/a.ts' } }, tainted);
    expect(read).toMatchObject({ decision: 'allow', tier: 'T0' });
    // A read stays T0 and says nothing of the taint.
    expect(read.reasons.join('; ')).not.toContain('proposed after reading');
  });

  it('denies everything when halted, before reading the action', () => {
    const halted = testContext(POLICY, { reader, pins, mode: 'halted' });
    expect(decide({ tool: 'fs.read', args: { path: '/p/app/a.ts' } }, halted)).toMatchObject({ decision: 'deny', code: 'HALTED', rule: 'mode.halted' });
    expect(decide('garbage', halted).code).toBe('HALTED');
  });

  it('runs only T0 reads inside scopes in read-only mode', () => {
    const ro = testContext(POLICY, { reader, pins, mode: 'read-only' });
    expect(decide({ tool: 'fs.read', args: { path: '/p/app/a.ts' } }, ro).decision).toBe('allow');
    expect(decide({ tool: 'fs.write', args: { path: '/p/app/a.ts', content: '' } }, ro)).toMatchObject({ decision: 'deny', code: 'POLICY_READ_ONLY' });
    expect(decide({ tool: 'exec.run', args: { program: 'git', args: ['status'] } }, ro).code).toBe('POLICY_READ_ONLY');
    expect(decide({ tool: 'fs.read', args: { path: '/etc/passwd' } }, ro).code).toBe('PATH_OUTSIDE_SCOPE');
    // Every refusal says why the gate is read-only (a typo can leave it with no scopes at all), once.
    for (const action of [{ tool: 'fs.read', args: { path: '/etc/passwd' } }, { tool: 'fs.write', args: { path: '/p/app/a.ts', content: '' } }, { tool: 'exec.run', args: { program: 'git', args: ['status'] } }]) {
      const why = decide(action, ro).reasons.filter((r) => r.includes('policy file failed to load'));
      expect(why, JSON.stringify(action)).toHaveLength(1);
      expect(why[0]).toContain('`oracle policy check` shows the errors');
    }
    expect(decide({ tool: 'fs.read', args: { path: '/etc/passwd' } }, ctx).reasons.join(' ')).not.toContain('failed to load');
  });

  it('intersects the ceilings and names the one that lacks a capability', () => {
    const d = decide({ tool: 'fs.write', args: { path: '/p/app/x', content: '' }, agent: 'reader' }, ctx);
    expect(d).toMatchObject({ decision: 'deny', code: 'CAPABILITY_DENIED' });
    expect(d.reasons[0]).toBe('fs.write is not granted by the principal reader ceiling');
    const noSpawn = testContext(POLICY, { reader, pins, deployment: ['fs.read', 'fs.write'] });
    expect(decide({ tool: 'exec.run', args: { program: 'git', args: ['status'] }, cwd: '/p' }, noSpawn).reasons[0]).toBe('proc.spawn is not granted by the deployment ceiling');
    expect(decide({ tool: 'fs.read', args: { path: '/p/app/a.ts' }, agent: 'ghost' }, ctx).code).toBe('PRINCIPAL_UNKNOWN');
    // Only an agent the shipped policy names is pointed at it: it has no entry for `ghost` to copy.
    expect(decide({ tool: 'fs.read', args: { path: '/p/app/a.ts' }, agent: 'ghost' }, ctx).reasons[0]).not.toContain('shipped');
    expect(decide({ tool: 'fs.read', args: { path: '/p/app/a.ts' }, agent: 'claude-code' }, ctx).reasons[0]).toContain('(the shipped config/policy.yaml has one)');
  });

  it('lets an action name its agent only to narrow the caller ceiling', () => {
    const readOnlyCaller = testContext(POLICY.replace('reader: { capabilities: [fs.read] }', 'reader: { capabilities: [fs.read] }\n    wide: { capabilities: [fs.read, fs.write] }'), {
      reader,
      pins,
      principal: ['fs.read'],
    });
    const d = decide({ tool: 'fs.write', args: { path: '/p/app/x', content: '' }, agent: 'wide' }, readOnlyCaller);
    expect(d).toMatchObject({ decision: 'deny', code: 'CAPABILITY_DENIED' });
    expect(d.reasons[0]).toBe('fs.write is not granted by the principal test ceiling');
  });

  it('shows the request as it will be sent: credential and forwarding headers removed, and said so', () => {
    const e = evaluate({ tool: 'net.fetch', args: { url: 'https://GitHub.com/a', headers: { Authorization: 'Bearer x', 'X-Forwarded-For': '1.2.3.4', Accept: 'text/html' } } }, ctx);
    expect(e.decision).toMatchObject({ decision: 'allow', tier: 'T1' });
    expect(e.args).toMatchObject({ url: 'https://github.com/a', method: 'GET', headers: { Accept: 'text/html' } });
    expect(e.decision.reasons.at(-1)).toBe('headers removed before sending: Authorization, X-Forwarded-For');
  });

  it('matches egress ports: default only, an explicit port, or any', () => {
    const ports = testContext('egress: { allow: [{ host: "127.0.0.1:11434" }, { host: "localhost:*" }, { host: "[::1]:8080" }] }\n', { reader });
    expect(decide({ tool: 'net.fetch', args: { url: 'http://127.0.0.1:11434/api' } }, ports).tier).toBe('T1');
    expect(decide({ tool: 'net.fetch', args: { url: 'http://127.0.0.1/api' } }, ports).code).toBe('EGRESS_DENIED');
    expect(decide({ tool: 'net.fetch', args: { url: 'http://localhost:9/x' } }, ports).tier).toBe('T1');
    expect(decide({ tool: 'net.fetch', args: { url: 'http://[::1]:8080/x' } }, ports).tier).toBe('T1');
    // A host listed for another port is not "not listed": the refusal says which port it has.
    expect(decide({ tool: 'net.fetch', args: { url: 'http://127.0.0.1/api' } }, ports).reasons[0]).toBe('`127.0.0.1` is in the egress allowlist for port 11434 only, not port 80 (list it as `127.0.0.1:80`, or `127.0.0.1:*` for any port)');
    expect(decide({ tool: 'net.fetch', args: { url: 'https://github.com:8443/x' } }, ctx).reasons[0]).toBe(
      '`github.com` is in the egress allowlist for port 443 (the default port of the scheme, as an entry without a port means) only, not port 8443 (list it as `github.com:8443`, or `github.com:*` for any port); egress.default is confirm',
    );
    expect(decide({ tool: 'net.fetch', args: { url: 'http://example.org/' } }, ports).reasons[0]).toBe('`example.org` is not in the egress allowlist (a person can add it under `egress.allow` in the policy)');
  });

  it('makes exec git need the capabilities of what the subcommand does', () => {
    const spawnOnly = testContext(POLICY.replace('allow: [status]', 'allow: [status, commit, fetch]'), { reader, pins, principal: ['fs.read', 'proc.spawn'] });
    const repo = testContext(POLICY.replace('allow: [status]', 'allow: [status, commit, fetch]'), { reader, pins });
    const commit = { tool: 'exec.run', args: { program: 'git', args: ['commit', '-am', 'x'] } };
    expect(decide(commit, spawnOnly)).toMatchObject({ decision: 'deny', code: 'CAPABILITY_DENIED' });
    expect(decide(commit, spawnOnly).reasons[0]).toBe('these arguments need git.write, which the principal test ceiling does not grant');
    expect(decide({ tool: 'exec.run', args: { program: 'git', args: ['fetch', 'https://evil.example/x'] } }, spawnOnly).code).toBe('CAPABILITY_DENIED');
    expect(decide(commit, repo).decision).not.toBe('deny');
  });

  it('keeps floors that tier rules cannot lower: exec git push and unlisted hosts', () => {
    const lowering = testContext(
      'programs:\n  git: { subcommands: { allow: [push] } }\negress: { default: confirm }\ntiers:\n  - { tool: exec.run, tier: T1 }\n  - { tool: net.fetch, tier: T1 }\n',
      { reader, pins },
    );
    expect(decide({ tool: 'exec.run', args: { program: 'git', args: ['push', 'origin', 'main'] } }, lowering).tier).toBe('T2');
    expect(decide({ tool: 'net.fetch', args: { url: 'https://unlisted.example/', method: 'POST' } }, lowering).tier).toBe('T2');
  });

  it('keeps the confirm list and programs.default: confirm a person\'s call whatever a tier rule says, and says so', () => {
    const lowering = testContext('scopes:\n  projects: { roots: [{ path: /p, mode: rw }] }\nprograms:\n  default: confirm\n  make: { subcommands: { allow: [test], confirm: [install] } }\n  tool1: {}\ntiers:\n  - { tool: exec.run, tier: T1, why: builds are cheap }\n', {
      reader,
      pins: { make: '/usr/bin/make', tool1: '/usr/bin/tool1' },
    });
    const run = (program: string, ...args: string[]) => decide({ tool: 'exec.run', args: { program, args }, cwd: '/p' }, lowering);
    const install = run('make', 'install');
    expect(install).toMatchObject({ decision: 'needs-approval', tier: 'T2', rule: 'tiers[0]' });
    expect(install.reasons.at(-1)).toBe('tiers[0] asks for T1: builds are cheap, but this action is never below T2');
    expect(run('unlisted').tier).toBe('T2');
    // The allow list, and a program with no grammar that a tier rule names, still follow the rule.
    expect(run('make', 'test')).toMatchObject({ tier: 'T1', reasons: ['`make test` is on the allow list', 'tiers[0] sets T1: builds are cheap'] });
    expect(run('tool1').tier).toBe('T1');
  });

  it('refuses malformed actions with INPUT_INVALID and names the field', () => {
    expect(decide(null, ctx).code).toBe('INPUT_INVALID');
    expect(decide({ tool: 'fs.read' }, ctx).code).toBe('INPUT_INVALID');
    expect(decide({ tool: 'fs.read', args: { path: 'a.ts' }, extra: 1 }, ctx).code).toBe('INPUT_INVALID');
    const d = decide({ tool: 'exec.run', args: { program: 'git', args: 'status' } }, ctx);
    expect(d.code).toBe('INPUT_INVALID');
    expect(d.reasons[0]).toContain('`args`');
  });

  it('denies a relative path when no working directory is known', () => {
    const noCwd = testContext(POLICY, { reader, pins });
    expect(decide({ tool: 'fs.read', args: { path: 'a.ts' } }, noCwd).code).toBe('PATH_INVALID');
    expect(decide({ tool: 'fs.read', args: { path: 'a.ts' }, cwd: 'relative' }, noCwd).code).toBe('PATH_INVALID');
  });
});
