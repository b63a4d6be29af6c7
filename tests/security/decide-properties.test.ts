import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CAPABILITIES, type Capability } from '../../shared/capabilities.js';
import { isDenyCode } from '../../shared/deny-codes.js';
import type { Decision } from '../../shared/decision.js';
import { tierRank } from '../../shared/tiers.js';
import { evaluate } from '../../server/core/decide/decide.js';
import type { DecideContext } from '../../server/core/decide/context.js';
import { LINUX, WINDOWS, type PathFlavor } from '../../server/core/paths/flavor.js';
import { TOOL_NAMES } from '../../server/core/tools/registry.js';
import { testContext } from '../fixtures/context.js';
import { memoryReader } from '../fixtures/memory-fs.js';

/** Property tests of SPEC §3–§5 invariants over generated actions and policies. */

const POSIX_TREE = memoryReader({
  '/home/u/projects/app/src/a.ts': 'file',
  '/home/u/projects/app/.ssh/id_rsa': 'file',
  '/home/u/.ssh/id_rsa': 'file',
  '/home/u/scratch/x': 'file',
  '/home/u/projects/app/out': { symlink: '/home/u/.ssh' },
  '/home/u/projects/app/up': { symlink: '../..' },
  '/home/u/projects/app/loop': { symlink: 'loop' },
});

const POLICY = `
scopes:
  projects: { roots: [{ path: "/home/u/projects", mode: rw, exclude: ["**/node_modules/**"] }] }
  scratch: { roots: [{ path: "/home/u/scratch", mode: rw }] }
  keys: { roots: [{ path: "/home/u/.ssh", mode: rw }] }
deny_always: ["**/.ssh/**", "**/.git/hooks/**"]
programs:
  git: { subcommands: { allow: [status, commit], confirm: [push], deny: ["push --force"] } }
  npm: { subcommands: { allow: [test], confirm: [install] } }
  python3: { allow_args_matching: ["-m pytest*"] }
egress: { allow: [{ host: github.com, why: code }], default: confirm }
tiers:
  - { tool: fs.read, path: "**/.ssh/**", tier: T0, why: "tries to open what deny_always closes" }
  - { tool: fs.write, path: "**/.ssh/**", tier: T1 }
principals:
  agents:
    narrow: { capabilities: [fs.read] }
    wide: { capabilities: [fs.read, fs.write, fs.delete, proc.spawn, git.write, net.egress] }
`;

function ctxWith(overrides: { deployment?: readonly Capability[]; principal?: readonly Capability[]; flavor?: PathFlavor } = {}): DecideContext {
  return testContext(POLICY, {
    reader: POSIX_TREE,
    flavor: overrides.flavor ?? LINUX,
    pins: { git: '/usr/bin/git', npm: '/usr/bin/npm', python3: '/usr/bin/python3' },
    cwd: '/home/u/projects/app',
    ...(overrides.deployment === undefined ? {} : { deployment: overrides.deployment }),
    ...(overrides.principal === undefined ? {} : { principal: overrides.principal }),
  });
}

const segment = fc.constantFrom('src', 'a.ts', 'app', 'x', '..', '.', 'node_modules', '.git', 'hooks', 'out', 'up', 'loop', 'new.txt', 'projects', 'u');
const pathArb = fc.oneof(
  fc.array(segment, { minLength: 1, maxLength: 6 }).map((s) => s.join('/')),
  fc.array(segment, { minLength: 1, maxLength: 6 }).map((s) => `/home/u/${s.join('/')}`),
  fc.constantFrom('/home/u/.ssh/id_rsa', '/home/u/scratch/x', '/etc/passwd', 'C:\\x', '~/x', '%2e%2e/x', 'a\u0000b'),
);
const argvArb = fc.array(fc.constantFrom('status', 'push', 'commit', '--force', '-f', 'origin', 'main', '-c', 'x=y', 'test', 'install', '-m', 'pytest', '+main'), { maxLength: 5 });
const urlArb = fc.constantFrom('https://github.com/x', 'http://evil.com/', 'file:///etc/passwd', 'https://u:p@github.com/', 'http://169.254.169.254/');

const actionArb = fc.oneof(
  fc.record({ tool: fc.constantFrom('fs.read', 'fs.list', 'fs.delete', 'git.status', 'git.diff', 'git.log'), args: fc.record({ path: pathArb }) }).map((a) =>
    a.tool.startsWith('git.') ? { tool: a.tool, args: { repo: a.args.path } } : a,
  ),
  fc.record({ tool: fc.constant('fs.write'), args: fc.record({ path: pathArb, content: fc.string({ maxLength: 8 }) }) }),
  fc.record({ tool: fc.constant('exec.run'), args: fc.record({ program: fc.constantFrom('git', 'npm', 'python3', 'bash', '/usr/bin/git'), args: argvArb }) }),
  fc.record({ tool: fc.constant('git.commit'), args: fc.record({ repo: pathArb, message: fc.constantFrom('fix', '', 'x\u0000') }) }),
  fc.record({ tool: fc.constant('git.push'), args: fc.record({ repo: pathArb, remote: fc.constantFrom('origin', '-x'), branch: fc.constantFrom('main', '+main', 'a:b'), force: fc.boolean() }) }),
  fc.record({ tool: fc.constant('net.fetch'), args: fc.record({ url: urlArb, method: fc.constantFrom('GET', 'POST', 'TRACE') }) }),
  fc.record({ tool: fc.constant('term.write'), args: fc.record({ session: fc.constant('s'), text: fc.constantFrom('ls', 'ls\nrm') }) }),
  fc.record({ tool: fc.constantFrom('input.synth'), args: fc.record({ text: fc.string({ maxLength: 4 }) }) }),
);
const withAgent = fc.tuple(actionArb, fc.constantFrom(undefined, 'narrow', 'wide')).map(([a, agent]) => (agent === undefined ? a : { ...a, agent }));

const rank = (d: Decision): number => tierRank(d.tier); // deny is T4, the top
const capabilitySubset = fc.subarray([...CAPABILITIES]);

/** Checked on the runtime value, not trusting the static type: that is what "total" means. */
function wellFormed(decision: Decision): boolean {
  const d = decision as unknown as Record<string, unknown>;
  const reasons = d['reasons'];
  if (!Array.isArray(reasons) || typeof d['rule'] !== 'string') return false;
  if (d['decision'] === 'allow') return (d['tier'] === 'T0' || d['tier'] === 'T1') && d['approver'] === null && d['code'] === null;
  if (d['decision'] === 'needs-approval') return (d['tier'] === 'T2' && d['approver'] === 'any-device') || (d['tier'] === 'T3' && d['approver'] === 'desktop');
  if (d['decision'] === 'deny') return d['tier'] === 'T4' && isDenyCode(d['code']) && d['approver'] === null && reasons.length > 0;
  return false;
}

describe('decide properties', () => {
  const ctx = ctxWith();

  it('deny_always always wins: a path through .ssh is denied whatever the tool, tier rules, scope or agent', () => {
    const under = fc.tuple(fc.array(fc.constantFrom('src', 'app', 'x', 'deep'), { maxLength: 3 }), fc.constantFrom('.ssh', '.git/hooks'), fc.array(fc.constantFrom('id_rsa', 'k', 'pre-commit'), { minLength: 1, maxLength: 2 }));
    fc.assert(
      fc.property(under, fc.constantFrom('fs.read', 'fs.list', 'fs.write', 'fs.delete'), fc.boolean(), fc.constantFrom(undefined, 'wide'), ([pre, denied, post], tool, absolute, agent) => {
        const path = [absolute ? '/home/u/projects/app' : '.', ...pre, denied, ...post].join('/');
        const args = tool === 'fs.write' ? { path, content: 'x' } : { path };
        const { decision } = evaluate({ tool, args, ...(agent === undefined ? {} : { agent }) }, ctx);
        expect(decision.decision).toBe('deny');
        expect(decision.code).toBe('PATH_DENY_ALWAYS');
      }),
      { numRuns: 500 },
    );
    // Even the root of a scope named for it, and a link that leads there.
    expect(evaluate({ tool: 'fs.read', args: { path: '/home/u/.ssh/id_rsa' } }, ctx).decision.code).toBe('PATH_DENY_ALWAYS');
    expect(evaluate({ tool: 'fs.read', args: { path: 'out/id_rsa' } }, ctx).decision.code).toBe('PATH_DENY_ALWAYS');
  });

  it('a narrower ceiling never widens the result (principal and deployment)', () => {
    fc.assert(
      fc.property(withAgent, capabilitySubset, capabilitySubset, (action, a, b) => {
        const narrow = a.filter((c) => b.includes(c));
        const wideCtx = ctxWith({ principal: b, deployment: b });
        const narrowCtx = ctxWith({ principal: narrow, deployment: b });
        const narrowDeploy = ctxWith({ principal: b, deployment: narrow });
        const wide = evaluate(action, wideCtx).decision;
        expect(rank(evaluate(action, narrowCtx).decision)).toBeGreaterThanOrEqual(rank(wide));
        expect(rank(evaluate(action, narrowDeploy).decision)).toBeGreaterThanOrEqual(rank(wide));
      }),
      { numRuns: 300 },
    );
  });

  it('taint never lowers a tier, and bumps every allowed tier above T0', () => {
    fc.assert(
      fc.property(withAgent, fc.constantFrom<'flag' | 'external' | 'foreign'>('flag', 'external', 'foreign'), (action, how) => {
        const clean = evaluate(action, ctx).decision;
        const taint =
          how === 'flag' ? { tainted: true } : { provenance: [{ kind: how === 'external' ? 'external' : 'local_foreign', source: 'node_modules/foo/README.md' }] };
        const dirty = evaluate({ ...action, ...taint }, ctx).decision;
        expect(rank(dirty)).toBeGreaterThanOrEqual(rank(clean));
        if (clean.decision !== 'deny' && clean.tier !== 'T0') expect(rank(dirty)).toBe(rank(clean) + 1);
      }),
      { numRuns: 500 },
    );
  });

  it('is total: arbitrary JSON in, a well-formed decision out, never a throw', () => {
    const windowsCtx = ctxWith({ flavor: WINDOWS });
    const shaped = fc.record({ tool: fc.constantFrom(...TOOL_NAMES, 'nope', '__proto__'), args: fc.dictionary(fc.constantFrom('path', 'content', 'program', 'args', 'url', 'repo', 'message', 'remote', 'branch', '__proto__', 'constructor'), fc.jsonValue()) }, { requiredKeys: [] });
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.anything(), shaped, withAgent), (action) => {
        for (const c of [ctx, windowsCtx]) {
          const result = evaluate(action, c);
          expect(wellFormed(result.decision)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
