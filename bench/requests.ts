import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../server/main.js';
import { measure, type Figure } from './stats.js';

/**
 * Device auth on the real HTTPS server (SPEC §14: steady-state authenticated within 1.2× of
 * unauthenticated; a junk token costs no Argon2 work): one kept-alive TLS connection, the
 * unauthenticated health route beside an authenticated request whose handler does as little
 * (an unknown action id), and the same request with a junk token.
 */
const RUNS = 3_000;

export async function requestBench(): Promise<Figure[]> {
  const root = mkdtempSync(join(tmpdir(), 'oracle-bench-req-'));
  const policy = join(root, 'policy.yaml');
  writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${root}", mode: ro }] }\n`);
  const running = await startServer({ home: join(root, 'home'), policy, port: 0 });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    const token = (await running.credentials.issue('ag', 'bench')).token;
    const junk = `oracle_ag_0123456789abcdef_${'A'.repeat(43)}`; // no such id: refused before any hashing
    const get = (path: string, expected: number, authorization?: string) => async () => {
      const status = await statusOf(`${running.url}${path}`, ca, agent, authorization);
      if (status !== expected) throw new Error(`${path} answered ${String(status)}, expected ${String(expected)}`);
    };
    return [
      await measure('request: unauthenticated (GET /api/v1/health)', RUNS, get('/api/v1/health', 200)),
      await measure('request: authenticated agent token (GET /api/v1/actions/unknown)', RUNS, get('/api/v1/actions/ac_unknown', 404, `Bearer ${token}`)),
      await measure('request: junk token of the right shape (401, no Argon2)', RUNS, get('/api/v1/actions/ac_unknown', 401, `Bearer ${junk}`)),
    ];
  } finally {
    agent.destroy();
    await running.close();
    rmSync(root, { recursive: true, force: true });
  }
}

function statusOf(url: string, ca: string, agent: Agent, authorization: string | undefined): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, agent, headers: authorization === undefined ? {} : { authorization } }, (res) => {
      res.resume();
      res.on('end', () => {
        resolve(res.statusCode);
      });
    });
    req.on('error', reject);
    req.end();
  });
}
