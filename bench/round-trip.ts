import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../server/main.js';
import { call } from '../tests/fixtures/https-client.js';
import { DeviceSigner } from '../tests/fixtures/device-signer.js';
import { listen } from '../tests/fixtures/sse.js';
import { summarize, type Figure } from './stats.js';

/**
 * Approval round trip on loopback, excluding the human (SPEC §14, budget p50 under 30 ms): an
 * agent submits a T2 action and waits; the phone's open event stream receives the card and
 * approves it at once with its device key; the agent's request returns with the action run.
 * Beside it the reference: the three HTTPS exchanges such a trip needs at minimum, as plain
 * `GET /api/v1/health` requests to the same server.
 */
const RUNS = 50;

export async function roundTripBench(): Promise<Figure[]> {
  const root = mkdtempSync(join(tmpdir(), 'oracle-bench-trip-'));
  const app = join(root, 'projects', 'app');
  mkdirSync(app, { recursive: true });
  const policy = join(root, 'policy.yaml');
  writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    bench: { capabilities: [fs.read, fs.write, fs.delete] }\n`);
  const running = await startServer({ home: join(root, 'home'), policy, port: 0 });
  try {
    const ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    const agent = { authorization: `Bearer ${(await running.credentials.issue('ag', 'bench')).token}` };
    const phone = await DeviceSigner.create();
    const device = (await running.credentials.issue('dev', 'bench phone', { profile: 'phone', public_key_jwk: phone.publicJwk as Record<string, unknown> })).token;
    const failures: string[] = [];
    const approve = async (card: Card): Promise<void> => {
      const path = `/api/v1/approvals/${card.approval_id}/approve`;
      const body = JSON.stringify({ nonce: card.nonce, arg_hash: card.arg_hash });
      try {
        const reply = await call(`${running.url}${path}`, { ca, method: 'POST', body, headers: { authorization: `Bearer ${device}`, ...(await phone.headers('POST', path, body)) } });
        if (reply.status !== 200) failures.push(JSON.stringify(reply.body));
      } catch (e) {
        failures.push(String(e)); // reported with the agent's reply below
      }
    };
    const trip: number[] = [];
    const reference: number[] = [];
    // The phone's side: its event stream answers every pending card as soon as it arrives.
    const stream = await listen(`${running.url}/api/v1/events`, ca, { authorization: `Bearer ${device}` }, (e) => {
      if (e.event === 'approval.pending') void approve(e.data as unknown as Card);
    });
    try {
      while (running.runtime.events.subscribers === 0) await new Promise((r) => setTimeout(r, 5));
      for (let i = 0; i < RUNS; i++) {
        const file = join(app, `f${String(i)}.txt`);
        writeFileSync(file, 'x');
        const t = process.hrtime.bigint();
        const reply = await call(`${running.url}/api/v1/actions?wait=20`, { ca, method: 'POST', headers: agent, body: JSON.stringify({ tool: 'fs.delete', args: { path: file } }) });
        trip.push(Number(process.hrtime.bigint() - t) / 1000);
        if (reply.body['executed'] !== true) throw new Error(`the approved action did not run: ${JSON.stringify(reply.body)} ${failures.join('; ')}`);
        const r = process.hrtime.bigint();
        for (let k = 0; k < 3; k++) await call(`${running.url}/api/v1/health`, { ca });
        reference.push(Number(process.hrtime.bigint() - r) / 1000);
      }
    } finally {
      stream.req.destroy();
    }
    return [summarize('approval round trip: submit → phone event → approve → agent resumes', trip), summarize('approval round trip: reference, 3 loopback HTTPS requests', reference)];
  } finally {
    await running.close();
    rmSync(root, { recursive: true, force: true });
  }
}

interface Card {
  readonly approval_id: string;
  readonly nonce: string;
  readonly arg_hash: string;
}
