import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type Running } from '../server/main.js';
import { measure, type Figure } from './stats.js';

/**
 * Pending approvals at scale (issue 14: listing 1,000 pending costs at most 2× listing 10): the
 * desktop's `GET /api/v1/approvals` over HTTPS with 10 and then 1,000 cards waiting (each card
 * signed once, a page of the oldest), and what one more request for approval costs with each
 * (a journal append, not a rewrite of every waiting card).
 */
const RUNS = 300;

export async function approvalsBench(): Promise<Figure[]> {
  const root = mkdtempSync(join(tmpdir(), 'oracle-bench-approvals-'));
  const app = join(root, 'projects', 'app');
  mkdirSync(app, { recursive: true });
  const policy = join(root, 'policy.yaml');
  writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${root}/projects", mode: rw }] }\n`);
  const running = await startServer({ home: join(root, 'home'), policy, port: 0 });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let made = 0;
  // A T2 delete in a project: a card that waits (wait=0 answers at once with its approval id).
  const ask = async () => {
    const path = join(app, `f${String(made++)}.txt`);
    writeFileSync(path, 'x');
    const result = await running.runtime.submit({ tool: 'fs.delete', args: { path } }, 0);
    if (result.status !== 'pending') throw new Error(`expected a waiting card: ${result.status} ${JSON.stringify(result.error)}`);
  };
  try {
    const ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    const list = listing(running, ca, agent);
    const figures: Figure[] = [];
    for (const pending of [10, 1000]) {
      while (made < pending) await ask();
      figures.push(await measure(`approvals: list with ${String(pending)} pending (desktop, HTTPS)`, RUNS, list));
      figures.push(await measure(`approvals: one more card requested with ${String(pending)} pending`, 50, async () => {
        await ask();
      }));
    }
    return figures;
  } finally {
    agent.destroy();
    await running.close();
    rmSync(root, { recursive: true, force: true });
  }
}

function listing(running: Running, ca: string, agent: Agent): () => Promise<void> {
  return () =>
    new Promise((resolve, reject) => {
      const req = request(`${running.url}/api/v1/approvals`, { ca, agent, headers: { authorization: `Desktop ${running.desktop.localToken}` } }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) resolve();
          else reject(new Error(`listing answered ${String(res.statusCode)}`));
        });
      });
      req.on('error', reject);
      req.end();
    });
}
