import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ORACLE_BIN, runOracle } from '../cli/run-oracle.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { tempTree } from '../fixtures/temp-tree.js';

/**
 * Issue 14 point 5: an action dispatched when the gate was killed gets an `interrupted` record on
 * the next start, once; the chain stays intact. Through the built `oracle run` and a real SIGKILL.
 */
describe('an action cut off by a crash', () => {
  const tree = tempTree('oracle-interrupted-');
  afterAll(() => {
    tree.dispose();
  });

  it('is marked interrupted by the next start, and only once', async () => {
    const home = tree.dir('home');
    const work = tree.dir('projects/app');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms:\n  sleep: { allow_args_matching: ["*"] }\n`);
    const child = spawn(process.execPath, [ORACLE_BIN, 'run', '--home', home, '--policy', policy], { stdio: ['pipe', 'ignore', 'ignore'] });
    child.stdin.write(`${JSON.stringify({ tool: 'exec.run', args: { program: 'sleep', args: ['30'], cwd: work } })}\n`);
    const logFile = (): string => {
      try {
        return readFileSync(join(home, 'logs', 'audit', `${new Date().toISOString().slice(0, 7)}.jsonl`), 'utf8');
      } catch {
        return '';
      }
    };
    for (let i = 0; i < 400 && !logFile().includes('"dispatched"'); i++) await new Promise((r) => setTimeout(r, 25));
    const dispatched = auditRecords(home).find((r) => r['kind'] === 'dispatched');
    expect(dispatched, 'the action was dispatched').toBeDefined();
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    // The next start (any command that opens the home) says what happened, before its own start.
    expect((await runOracle(['run', '--home', home, '--policy', policy], '')).code).toBe(0);
    const marked = auditRecords(home).filter((r) => r['kind'] === 'interrupted');
    expect(marked.map((r) => r['action_id'])).toEqual([dispatched?.['action_id']]);
    // A later start finds nothing more to mark.
    expect((await runOracle(['run', '--home', home, '--policy', policy], '')).code).toBe(0);
    expect(auditRecords(home).filter((r) => r['kind'] === 'interrupted')).toHaveLength(1);
    expect((await runOracle(['audit', 'verify', '--home', home])).code).toBe(0);
  }, 60_000);
});
