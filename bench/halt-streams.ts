import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localRequest } from '../server/adapters/local-client.js';
import { startServer, type Running } from '../server/main.js';
import { summarize, type Figure } from './stats.js';

/**
 * HALT through the HTTPS API with 1,000 live event streams open (issue 14), beside the same HALT
 * with none, in one run on one gate. The streams are a phone's, held by another process (so the
 * clients' parsing is not charged to the gate), and every one of them receives the HALT event.
 * Measured: from the request until its answer (HALT in force, recorded), and until the last of
 * the 1,000 streams has the event (as the client process reports it).
 */
const STREAMS = 1000;
const RUNS = 7;

/** Opens `n` SSE streams with one credential; prints `open` once all answer and `got N` per HALT seen on all. */
const CLIENT = `
const https = require('node:https');
const [url, n, auth] = process.argv.slice(1);
const ca = require('node:fs').readFileSync(0, 'utf8');
const agent = new https.Agent({ keepAlive: true, maxSockets: Infinity });
let open = 0, seen = 0;
for (let i = 0; i < Number(n); i++) {
  https.request(url + '/api/v1/events', { ca, agent, headers: { accept: 'text/event-stream', authorization: auth } }, (res) => {
    if (++open === Number(n)) console.log('open');
    res.setEncoding('utf8');
    res.on('data', (d) => { if (d.includes('event: halt') && ++seen % Number(n) === 0) console.log('got ' + seen / Number(n)); });
  }).on('error', () => {}).end();
}`;

export async function haltStreamsBench(): Promise<Figure[]> {
  const root = mkdtempSync(join(tmpdir(), 'oracle-bench-halt-streams-'));
  const policy = join(root, 'policy.yaml');
  writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${root}", mode: rw }] }\n`);
  const running = await startServer({ home: join(root, 'home'), policy, port: 0 });
  let clients: ChildProcess | undefined;
  try {
    const none = await halts(running);
    const phone = (await running.credentials.issue('dev', 'bench phone', { profile: 'phone', public_key_jwk: { kty: 'EC', crv: 'P-256' } })).token;
    clients = spawn(process.execPath, ['-e', CLIENT, running.url, String(STREAMS), `Bearer ${phone}`], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = lineReader(clients);
    clients.stdin?.end(readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8'));
    await lines.until('open');
    // A stream subscribes just after its headers went out.
    for (let i = 0; i < 500 && running.runtime.events.subscribers < STREAMS; i++) await new Promise((r) => setTimeout(r, 10));
    const open = running.runtime.events.subscribers;
    if (open < STREAMS) throw new Error(`only ${String(open)} of ${String(STREAMS)} streams opened`);
    const many = await halts(running, async (run) => lines.until(`got ${String(run + 1)}`));
    return [
      summarize(`HALT over HTTPS, answer: ${String(STREAMS)} event streams open`, many.answered),
      summarize(`HALT over HTTPS, until all ${String(STREAMS)} streams have the event`, many.delivered),
      summarize('HALT over HTTPS, answer: reference, no event streams', none.answered),
    ];
  } finally {
    clients?.kill();
    await running.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** RUNS HALTs from the desktop's local credential, each answered, then delivered (when asked), then resumed. */
async function halts(running: Running, delivered?: (run: number) => Promise<void>): Promise<{ answered: number[]; delivered: number[] }> {
  const home = running.runtime.gate.home;
  const gate = { url: running.url, pid: process.pid, token: running.desktop.localToken };
  const as = { authorization: `Desktop ${gate.token}` };
  const samples = { answered: [] as number[], delivered: [] as number[] };
  for (let run = 0; run < RUNS; run++) {
    const t = process.hrtime.bigint();
    const answer = await localRequest(home, gate, { method: 'POST', path: '/api/v1/halt', body: { reason: 'bench' }, ...as });
    const us = Number(process.hrtime.bigint() - t) / 1000;
    if (answer.body['mode'] !== 'halted') throw new Error(`HALT was not in force: ${JSON.stringify(answer.body)}`);
    await delivered?.(run);
    const all = Number(process.hrtime.bigint() - t) / 1000;
    await localRequest(home, gate, { method: 'POST', path: '/api/v1/resume', body: {}, ...as });
    // The first HALT warms the code paths; the rest are the figure.
    if (run > 0) {
      samples.answered.push(us);
      samples.delivered.push(all);
    }
  }
  return samples;
}

function lineReader(child: ChildProcess): { until: (line: string) => Promise<void> } {
  const seen: string[] = [];
  const waiters: { line: string; resolve: () => void }[] = [];
  let buffer = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const line of parts) {
      seen.push(line);
      for (const w of waiters.filter((x) => x.line === line)) w.resolve();
    }
  });
  return {
    until: (line) =>
      seen.includes(line)
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => {
              reject(new Error(`the stream clients never said "${line}"`));
            }, 60_000);
            waiters.push({
              line,
              resolve: () => {
                clearTimeout(timer);
                resolve();
              },
            });
          }),
  };
}
