import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { tempTree } from '../fixtures/temp-tree.js';
import { ORACLE_BIN } from './run-oracle.js';

/**
 * `oracle … | head`: the reader closes the pipe after the lines it wanted. The command stops
 * quietly with its own exit code, as Unix tools do, never "internal error: write EPIPE" (70).
 */
describe('a listing whose reader stops early', () => {
  const tree = tempTree('oracle-pipe-');
  afterAll(() => {
    tree.dispose();
  });

  it('stops quietly when stdout is closed', async () => {
    const child = spawn(process.execPath, [ORACLE_BIN, 'check', '--home', tree.dir('home')], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString('utf8');
    });
    // As `head -1` does: take the first chunk, then close the read end.
    child.stdout.once('data', () => {
      child.stdout.destroy();
    });
    const line = `${JSON.stringify({ tool: 'fs.read', args: { path: '/tmp/x' } })}\n`;
    child.stdin.on('error', () => undefined);
    child.stdin.end(line.repeat(20_000));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toContain('EPIPE');
    expect(code, stderr).toBe(0);
  });
});
