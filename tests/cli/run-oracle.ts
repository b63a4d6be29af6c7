import { spawn } from 'node:child_process';
import { built } from '../fixtures/built.js';

/** The built command; importing this throws when dist/ is older than the sources (tests/fixtures/built.ts). */
export const ORACLE_BIN = built('server', 'cli', 'oracle.js');

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built `oracle` command as a real child process, feeding `input` on stdin. */
export function runOracle(args: readonly string[], input = '', env: NodeJS.ProcessEnv = process.env, bytes?: Buffer): Promise<Run> {
  return runNode([ORACLE_BIN, ...args], input, env, bytes);
}

/** Runs Node on `args` (a built entry point and its arguments) as a real child process. */
export function runNode(args: readonly string[], input = '', env: NodeJS.ProcessEnv = process.env, bytes?: Buffer): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    child.stdin.end(bytes ?? input);
  });
}
