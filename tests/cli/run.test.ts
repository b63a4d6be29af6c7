import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Text } from '../../server/adapters/audit/appender.js';
import { recomputeHash, type AuditRecord } from '../../server/core/audit/record.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runOracle } from './run-oracle.js';
import { git } from '../fixtures/git.js';

/** `oracle run` and `oracle undo` through the built command (SPEC §12). */
describe('oracle run', () => {
  let tree: TempTree;
  let home = '';
  let policy = '';
  let app = '';
  let scratch = '';
  beforeAll(() => {
    tree = tempTree('oracle-run-');
    home = tree.dir('home');
    app = tree.dir('projects/app');
    scratch = tree.dir('scratch');
    writeFileSync(`${scratch}/old.txt`, 'old');
    git(app, 'init', '-q', '-b', 'main');
    writeFileSync(`${app}/a.txt`, 'one\n');
    git(app, 'add', 'a.txt');
    git(app, 'commit', '-qm', 'init');
    policy = join(tree.root, 'policy.yaml');
    writeFileSync(
      policy,
      `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\n  scratch: { roots: [{ path: "${scratch}", mode: rw }] }\n` +
        'deny_always: [".git", ".env"]\nprograms:\n  git: { subcommands: { allow: [status], confirm: [push] } }\n',
    );
  });
  afterAll(() => {
    tree.dispose();
  });

  it('runs T0 and T1, refuses needs-approval and deny, audits every line, and undoes write, delete and commit', async () => {
    const lines = [
      { tool: 'fs.read', args: { path: `${app}/a.txt` } },
      { tool: 'fs.write', args: { path: `${app}/a.txt`, content: 'two\n' } },
      { tool: 'fs.delete', args: { path: `${scratch}/old.txt` } },
      { tool: 'git.commit', args: { repo: app, message: 'agent: two', paths: [`${app}/a.txt`] } },
      { tool: 'exec.run', args: { program: 'git', args: ['push', 'origin', 'main'], cwd: app } },
      { tool: 'fs.read', args: { path: `${app}/.env` } },
    ];
    const run = await runOracle(['run', '--policy', policy, '--home', home], lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    expect(run.code).toBe(0);
    const out = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown> & { error?: { code: string } });
    expect(out.map((r) => [r['decision'], r['tier'], r['executed']])).toEqual([
      ['allow', 'T0', true],
      ['allow', 'T1', true],
      ['allow', 'T1', true],
      ['allow', 'T1', true],
      ['needs-approval', 'T2', false],
      ['deny', 'T4', false],
    ]);
    expect(out[0]?.['output']).toBe('one\n');
    expect(out[4]?.error?.code).toBe('APPROVAL_REQUIRED');
    expect(readFileSync(`${app}/a.txt`, 'utf8')).toBe('two\n');
    expect(existsSync(`${scratch}/old.txt`)).toBe(false);
    expect(git(app, 'log', '-1', '--format=%s')).toBe('agent: two');

    // The audit log: every line decided, T0/T1 dispatched before they ran, a hash chain.
    const files = readdirSync(join(home, 'logs', 'audit'));
    expect(files).toHaveLength(1);
    const records = readFileSync(join(home, 'logs', 'audit', files[0] ?? ''), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as AuditRecord);
    expect(records.filter((r) => r.kind === 'decision')).toHaveLength(6);
    expect(records.filter((r) => r.kind === 'dispatched')).toHaveLength(4);
    expect(records.filter((r) => r.kind === 'succeeded')).toHaveLength(4);
    records.forEach((r, i) => {
      expect(recomputeHash(r, sha256Text)).toBe(r.hash);
      if (i > 0) expect(r.prev).toBe(records[i - 1]?.hash);
    });
    // Arguments enter the log as a digest and a bounded, redacted preview, never as the raw object.
    const writeRecord = records.find((r) => r.kind === 'decision' && r.tool === 'fs.write');
    expect(writeRecord?.args_digest).toMatch(/^sha256:[0-9a-f]{64}$/u);
    expect(writeRecord).not.toHaveProperty('args');
    const byAction = (id: unknown, kind: string) => records.findIndex((r) => r.action_id === id && r.kind === kind);
    expect(byAction(out[1]?.['action_id'], 'dispatched')).toBeLessThan(byAction(out[1]?.['action_id'], 'succeeded'));

    // Undo all three, newest first, through the command.
    for (const result of [out[3], out[2], out[1]]) {
      const undone = await runOracle(['undo', String(result?.['undo_id']), '--policy', policy, '--home', home]);
      expect(undone.code, undone.stdout + undone.stderr).toBe(0);
    }
    expect(git(app, 'log', '-1', '--format=%s')).toBe('init');
    expect(readFileSync(`${app}/a.txt`, 'utf8')).toBe('one\n');
    expect(readFileSync(`${scratch}/old.txt`, 'utf8')).toBe('old');
    const list = await runOracle(['undo', 'list', '--policy', policy, '--home', home]);
    expect(list.stdout.split('\n').filter((l) => l.includes('(undone')).length).toBe(3);
    const twice = await runOracle(['undo', String(out[1]?.['undo_id']), '--policy', policy, '--home', home]);
    expect(twice.code).toBe(1);
  });
});
