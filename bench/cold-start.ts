import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarize, type Figure } from './stats.js';

/**
 * Cold start to the first HTTPS response with existing certs (SPEC §14, budget 1 s): a new
 * `oracle serve` process on a home that already has its certificates and audit log, until
 * `/api/v1/health` answers; beside it the reference, a bare Node HTTPS server with the same
 * certificate answering one request, so the figure separates ORACLE's start-up from Node's.
 */
const RUNS = 5;
const ORACLE = join(import.meta.dirname, '..', 'dist', 'server', 'cli', 'oracle.js');
const REFERENCE = `
const { readFileSync } = require('node:fs');
const { createServer } = require('node:https');
const [cert, key] = process.argv.slice(1);
const server = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (_, res) => res.end('{"ok":true}'));
server.listen(0, '127.0.0.1', () => console.log('listening on https://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

export async function coldStartBench(): Promise<Figure[]> {
  const home = mkdtempSync(join(tmpdir(), 'oracle-bench-start-'));
  try {
    await firstResponse([ORACLE, 'serve', '--port', '0', '--home', home]); // creates certs, keys and the log
    const certs = join(home, 'certs');
    return [
      await startFigure('cold start: oracle serve to first HTTPS response', [ORACLE, 'serve', '--port', '0', '--home', home]),
      await startFigure('cold start: reference, bare node:https server', ['-e', REFERENCE, join(certs, 'server.crt'), join(certs, 'server.key')]),
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

async function startFigure(name: string, args: readonly string[]): Promise<Figure> {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await firstResponse(args));
  return summarize(name, samples);
}

/** Microseconds from spawn to a 200 from the printed address; the process is then stopped. */
async function firstResponse(args: readonly string[]): Promise<number> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await printedPort(child.stdout);
    const status = await get(`https://127.0.0.1:${String(port)}/api/v1/health`);
    if (status !== 200) throw new Error(`health answered ${String(status)}`);
    return Number(process.hrtime.bigint() - started) / 1000;
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
}

function printedPort(stdout: NodeJS.ReadableStream): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = '';
    stdout.setEncoding('utf8');
    stdout.on('data', (chunk: string) => {
      seen += chunk;
      const match = /listening on https:\/\/127\.0\.0\.1:(\d+)/u.exec(seen);
      if (match?.[1] !== undefined) resolve(Number(match[1]));
    });
    stdout.on('end', () => {
      reject(new Error(`the server exited before listening: ${seen}`));
    });
  });
}

function get(url: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    // The bench times the start, not the pin: the certificate is the one the process just loaded.
    const req = request(url, { rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end();
  });
}
