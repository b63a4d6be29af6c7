import { spawn } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server/main.js';
import { ORACLE_BIN } from '../cli/run-oracle.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * Issue 14 point 4: a start that cannot succeed ends within 5 s, non-zero, with one line naming
 * the file (or the port) and what to do; it never hangs holding the home. Each file of a real
 * home is corrupted in turn and the built `oracle serve` is started on it.
 */
const LIMIT_MS = 5000;

function serve(home: string, port = 0): Promise<{ code: number | null; stderr: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [ORACLE_BIN, 'serve', '--port', String(port), '--home', home], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    const kill = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS * 2);
    child.on('exit', (code) => {
      clearTimeout(kill);
      resolve({ code, stderr, ms: Date.now() - started });
    });
  });
}

describe('oracle serve on a home with a broken file', () => {
  let tree: TempTree;
  let base = '';
  beforeAll(async () => {
    tree = tempTree('oracle-start-fail-');
    base = tree.dir('base');
    // A real home: certificates, the audit log and its checkpoint, a credential, approvals.
    const running = await startServer({ home: base, port: 0 });
    await running.credentials.issue('ag', 'claude-code');
    await running.close();
  });
  afterAll(() => {
    tree.dispose();
  });

  it.each(['data/credentials.json', 'data/approvals.json', 'data/approvals.journal', 'data/taint.journal', 'data/push.json', 'data/policy-candidates.json', 'data/audit-checkpoint.json', 'data/audit-signing.key', 'certs/server.key', 'certs/ca.key', 'certs/ca.crt'])(
    'exits promptly, non-zero, naming %s',
    async (file) => {
      const home = join(tree.root, file.replaceAll('/', '-'));
      cpSync(base, home, { recursive: true });
      writeFileSync(join(home, file), 'garbage{\n');
      const run = await serve(home);
      expect(run.code, run.stderr).toBe(1);
      expect(run.ms).toBeLessThan(LIMIT_MS);
      expect(run.stderr).toContain(join(home, file));
      expect(run.stderr).not.toContain('internal error');
      rmSync(home, { recursive: true, force: true });
    },
    20_000,
  );

  it('exits promptly, non-zero, naming a port that is in use', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const home = join(tree.root, 'port');
      cpSync(base, home, { recursive: true });
      const run = await serve(home, port);
      expect(run.code, run.stderr).toBe(1);
      expect(run.ms).toBeLessThan(LIMIT_MS);
      expect(run.stderr).toContain(`port ${String(port)} is in use`);
    } finally {
      blocker.close();
    }
  }, 20_000);
});
