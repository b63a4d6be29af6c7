import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { ensureTlsMaterial } from '../server/adapters/certs.js';
import { listenHttps } from '../server/adapters/https-listener.js';
import { startServer } from '../server/main.js';
import type { Figure } from './stats.js';

/**
 * Throughput under concurrent agents (issue 14): `POST /api/v1/actions` of a T0 read through the
 * whole gate (credential, decision, three audit records with group commit, the read itself), at
 * 1, 16 and 64 concurrent agents, beside the ceiling: a bare Hono app on the same listener and
 * the same TLS certificate answering a constant JSON. The load comes from another process (one
 * kept-alive connection per agent), so its own work is not charged to the server. Each level
 * runs a fixed time; the figure's per_second is completed requests per second, p50/p99 their
 * latency, and its cpu what the serving process and the load generator each spent per request.
 * Before the levels each side takes a short load that is not measured, so the first level is not
 * the JIT's warm-up (session 16: 333 actions/s at 1 agent cold against 711/s warm).
 */
const LEVELS = [1, 16, 64] as const;
const SECONDS = 4;
const WARMUP_SECONDS = 2;

/** Runs `agents` loops of requests for `seconds`; prints `{done, p50_us, p99_us}` as JSON. */
const LOAD = `
const https = require('node:https');
const [url, agents, seconds, auth, body] = process.argv.slice(1);
const ca = require('node:fs').readFileSync(0, 'utf8');
const lat = [];
let done = 0, failed = 0;
const cpu = process.cpuUsage();
const started = process.hrtime.bigint();
const until = Date.now() + Number(seconds) * 1000;
function one(agent) {
  return new Promise((resolve) => {
    const t = process.hrtime.bigint();
    const req = https.request(url, { method: 'POST', ca, agent, headers: { authorization: auth, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => { if (res.statusCode === 200) { done++; lat.push(Number(process.hrtime.bigint() - t) / 1000); } else failed++; resolve(); });
    });
    req.on('error', () => { failed++; resolve(); });
    req.end(body);
  });
}
async function loop() { const agent = new https.Agent({ keepAlive: true, maxSockets: 1 }); while (Date.now() < until) await one(agent); agent.destroy(); }
Promise.all(Array.from({ length: Number(agents) }, loop)).then(() => {
  const used = process.cpuUsage(cpu);
  const wall_us = Number(process.hrtime.bigint() - started) / 1000;
  lat.sort((a, b) => a - b);
  const at = (q) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))] || 0;
  console.log(JSON.stringify({ done, failed, p50_us: Math.round(at(0.5)), p99_us: Math.round(at(0.99)), cpu_us: used.user + used.system, wall_us }));
});`;

interface Load {
  readonly done: number;
  readonly failed: number;
  readonly p50_us: number;
  readonly p99_us: number;
  /** The load generator's CPU time (all threads) and wall time over its loops. */
  readonly cpu_us: number;
  readonly wall_us: number;
  /** This process's CPU time over the same run: the server under load (the other one idles). */
  readonly server_cpu_us: number;
}

function load(url: string, agents: number, ca: string, auth: string, body: string, seconds = SECONDS): Promise<Load> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', LOAD, url, String(agents), String(seconds), auth, body], { stdio: ['pipe', 'pipe', 'inherit'] });
    // Counted from the spawn: the child's start costs this process nothing, its loops are the run.
    const serving = process.cpuUsage();
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('close', () => {
      const used = process.cpuUsage(serving);
      try {
        resolve({ ...(JSON.parse(out) as Omit<Load, 'server_cpu_us'>), server_cpu_us: used.user + used.system });
      } catch {
        reject(new Error(`the load generator printed ${out}`));
      }
    });
    child.stdin.end(ca);
  });
}

export async function throughputBench(): Promise<Figure[]> {
  const root = mkdtempSync(join(tmpdir(), 'oracle-bench-throughput-'));
  const policy = join(root, 'policy.yaml');
  writeFileSync(join(root, 'a.txt'), 'a');
  writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${root}", mode: rw }] }\nprincipals:\n  agents:\n    bench: { capabilities: [fs.read] }\n`);
  const running = await startServer({ home: join(root, 'home'), policy, port: 0 });
  const tls = await ensureTlsMaterial(running.runtime.gate.home, { dns: ['localhost'], ips: ['127.0.0.1', '::1'] });
  const ceilingApp = new Hono();
  const constant = { decision: 'allow', tier: 'T0', executed: true, content: 'a' };
  ceilingApp.post('/api/v1/actions', (c) => c.json(constant));
  const ceiling = await listenHttps(ceilingApp, { hostname: '127.0.0.1', port: 0, key: tls.key, cert: tls.cert });
  try {
    const ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    const token = (await running.credentials.issue('ag', 'bench')).token;
    const body = JSON.stringify({ tool: 'fs.read', args: { path: join(root, 'a.txt') } });
    const figures: Figure[] = [];
    await load(`https://127.0.0.1:${String(ceiling.port)}/api/v1/actions`, 16, ca, 'none', '{}', WARMUP_SECONDS);
    await load(`${running.url}/api/v1/actions?wait=0`, 16, ca, `Bearer ${token}`, body, WARMUP_SECONDS);
    for (const agents of LEVELS) {
      // Interleaved per level: the ceiling and the gate see the same state of the machine.
      const bare = await load(`https://127.0.0.1:${String(ceiling.port)}/api/v1/actions`, agents, ca, 'none', '{}');
      const gate = await load(`${running.url}/api/v1/actions?wait=0`, agents, ca, `Bearer ${token}`, body);
      if (gate.failed > 0 || gate.done === 0) throw new Error(`the gate failed ${String(gate.failed)} of its requests at ${String(agents)} agents`);
      figures.push(figureOf(`throughput, ${String(agents)} agents: POST /api/v1/actions T0 read through the gate`, gate));
      figures.push(figureOf(`throughput, ${String(agents)} agents: reference, bare Hono constant JSON, same TLS`, bare));
    }
    return figures;
  } finally {
    await ceiling.close();
    await running.close();
    rmSync(root, { recursive: true, force: true });
  }
}

function figureOf(name: string, l: Load): Figure {
  const per = (us: number): number => Math.round(us / Math.max(1, l.done));
  const cores = (us: number): number => Math.round((100 * us) / l.wall_us) / 100;
  return {
    name,
    runs: l.done,
    p50_us: l.p50_us,
    p99_us: l.p99_us,
    per_second: Math.round(l.done / SECONDS),
    cpu: { server_us: per(l.server_cpu_us), client_us: per(l.cpu_us), server_cores: cores(l.server_cpu_us), client_cores: cores(l.cpu_us) },
  };
}
