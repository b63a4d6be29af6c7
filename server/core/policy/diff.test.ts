import { describe, expect, it } from 'vitest';
import { diffPolicies } from './diff.js';
import { loadPolicy } from './load.js';
import { LINUX } from '../paths/flavor.js';

const load = (text: string) => {
  const r = loadPolicy(text, { flavor: LINUX, userHome: '/home/u' });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.policy;
};
const BASE = `scopes:\n  deny_always: ["**/.env"]\n  projects: { roots: [{ path: "/home/u/p", mode: rw }] }\nprograms:\n  git: { subcommands: { allow: [status], confirm: [push], deny: [] } }\negress:\n  allow: [{ host: api.example.com }]\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write] }\n`;

describe('diffPolicies', () => {
  it('says which paths, programs, hosts and agents gain or lose what', () => {
    const next = load(
      `scopes:\n  projects: { roots: [{ path: "/home/u/p", mode: ro }, { path: "/home/u/q", mode: rw }] }\nprograms:\n  git: { subcommands: { allow: [status, push], confirm: [], deny: [] } }\n  make: {}\negress:\n  allow: [{ host: cdn.example.com }]\n  default: confirm\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, proc.spawn] }\n`,
    );
    const changes = diffPolicies(load(BASE), next).map((c) => `${c.effect} ${c.what}${c.widens ? ' !' : ''}`);
    expect(changes).toEqual([
      'changes path /home/u/p: rw (scope projects) → ro (scope projects)',
      'gains path /home/u/q: rw (scope projects)',
      'loses deny_always **/.env: no longer always refused !',
      'changes program git: allow status, confirm push → allow status, allow push',
      'gains program make: no arguments',
      'gains host cdn.example.com: allowed',
      'loses host api.example.com: no longer allowed',
      'changes an unlisted host: deny → confirm',
      'gains agent claude-code: proc.spawn !',
      'loses agent claude-code: fs.write',
    ]);
  });

  it('says when a program’s uncovered arguments turn from refused to a person’s call', () => {
    const next = load(BASE.replace('git: { subcommands:', 'git: { default: confirm, subcommands:'));
    expect(diffPolicies(load(BASE), next).map((c) => `${c.effect} ${c.what}`)).toEqual(['changes program git: allow status, confirm push → allow status, confirm push, anything else confirm']);
    expect(next.programs.get('git')?.otherwise).toBe('confirm');
    expect(load(BASE).programs.get('git')?.otherwise).toBeUndefined();
  });

  it('finds nothing in the same policy, and nothing that widens in a narrowing', () => {
    expect(diffPolicies(load(BASE), load(BASE))).toEqual([]);
    const narrower = load(BASE.replace('[fs.read, fs.write]', '[fs.read]'));
    expect(diffPolicies(load(BASE), narrower).some((c) => c.widens)).toBe(false);
  });

  it('counts the policy ceiling and the delegate agent as what widens', () => {
    const ceiling = 'capabilities: [fs.read, fs.write]\n';
    const delegate = 'delegate: { program: /usr/local/bin/claude, args: ["-p"], key: { secret: anthropic, env: ANTHROPIC_API_KEY }, hosts: [api.anthropic.com] }\n';
    const said = (from: string, to: string) => diffPolicies(load(from), load(to)).map((c) => `${c.effect} ${c.what}${c.widens ? ' !' : ''}`);
    expect(said(BASE + ceiling, BASE)).toContainEqual(expect.stringMatching(/^gains policy capabilities: fs\.delete, .* !$/u));
    expect(said(BASE, BASE + ceiling)).toContainEqual(expect.stringMatching(/^loses policy capabilities: fs\.delete, .*[^!]$/u));
    expect(said(BASE, BASE + delegate)).toEqual(['gains delegate /usr/local/bin/claude -p (secret anthropic as ANTHROPIC_API_KEY; hosts api.anthropic.com; 600 s) !']);
    expect(said(BASE + delegate, BASE + delegate.replace('api.anthropic.com', 'evil.example.com'))).toEqual([
      'changes delegate /usr/local/bin/claude -p (secret anthropic as ANTHROPIC_API_KEY; hosts api.anthropic.com; 600 s) → /usr/local/bin/claude -p (secret anthropic as ANTHROPIC_API_KEY; hosts evil.example.com; 600 s) !',
    ]);
    expect(said(BASE + delegate, BASE).every((line) => !line.endsWith('!'))).toBe(true);
  });
});
