import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { call } from '../fixtures/https-client.js';
import { DeviceSigner } from '../fixtures/device-signer.js';
import { listen } from '../fixtures/sse.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

async function until<T>(probe: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('timed out');
}

describe('live events over SSE', () => {
  let tree: TempTree;
  let running: Running;
  let ca = '';
  let agentToken = '';
  let phoneToken = '';
  beforeAll(async () => {
    tree = tempTree('oracle-events-');
    tree.dir('projects/app');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write, fs.delete] }\n`);
    running = await startServer({ home: tree.dir('home'), policy, port: 0 });
    ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    agentToken = (await running.credentials.issue('ag', 'claude-code')).token;
    const phone = await DeviceSigner.create();
    phoneToken = (await running.credentials.issue('dev', 'phone', { profile: 'phone', public_key_jwk: phone.publicJwk as Record<string, unknown> })).token;
  });
  afterAll(async () => {
    await running.close();
    tree.dispose();
  });

  it('streams redacted approval cards to a phone with ids, resumes after a reconnect, and drops dead streams', async () => {
    const first = await listen(`${running.url}/api/v1/events`, ca, { authorization: `Bearer ${phoneToken}` });
    await until(() => (running.runtime.events.subscribers > 0 ? true : undefined));
    const secret = `ghp_${'AbCdEf0123456789'.repeat(2)}abcd`;
    writeFileSync(`${tree.root}/projects/app/x-${secret}`, 'x'); // a delete of nothing gets no card
    void call(`${running.url}/api/v1/actions?wait=0`, { ca, method: 'POST', headers: { authorization: `Bearer ${agentToken}` }, body: JSON.stringify({ tool: 'fs.delete', args: { path: `${tree.root}/projects/app/x-${secret}` } }) });
    const card = await until(() => first.events.find((e) => e.event === 'approval.pending'));
    expect(card.id).toMatch(/^\d+$/u);
    expect(JSON.stringify(card.data)).not.toContain(secret);
    expect(card.data).toMatchObject({ tool: 'fs.delete', tier: 'T2', desktop_only: false });
    first.req.destroy();
    await until(() => (running.runtime.events.subscribers === 0 ? true : undefined));

    // Missed while disconnected, delivered on reconnect from the last id seen.
    await running.runtime.halt('test', 'desktop');
    const again = await listen(`${running.url}/api/v1/events`, ca, { authorization: `Bearer ${phoneToken}`, 'last-event-id': card.id });
    const halt = await until(() => again.events.find((e) => e.event === 'halt'));
    expect(Number(halt.id)).toBeGreaterThan(Number(card.id));
    again.req.destroy();
    await running.runtime.resume('desktop');
  });

  it('ends the open stream of a device that is revoked', async () => {
    const phone = await DeviceSigner.create();
    const issued = await running.credentials.issue('dev', 'doomed', { profile: 'phone', public_key_jwk: phone.publicJwk as Record<string, unknown> });
    const stream = await listen(`${running.url}/api/v1/events`, ca, { authorization: `Bearer ${issued.token}` });
    const before = running.runtime.events.subscribers;
    expect(before).toBeGreaterThan(0);
    running.credentials.revoke(issued.id);
    await running.runtime.halt('after revoke', 'desktop');
    await until(() => (running.runtime.events.subscribers < before ? true : undefined));
    expect(stream.events.find((e) => e.event === 'halt')).toBeUndefined();
    stream.req.destroy();
    await running.runtime.resume('desktop');
  });

  it('rate-limits nonce attestations per address', async () => {
    const statuses: number[] = [];
    // Like every route but health, the key check wants a credential (SPEC §12), refused before signing.
    expect((await call(`${running.url}/api/v1/attest?nonce=${'B'.repeat(22)}`, { ca })).status).toBe(401);
    const phone = { authorization: `Bearer ${phoneToken}` };
    for (let i = 0; i < 65; i++) statuses.push((await call(`${running.url}/api/v1/attest?nonce=${'B'.repeat(22)}`, { ca, headers: phone })).status);
    expect(statuses.slice(0, 50).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    // Key checks have their own budget: pairing from the same address is not starved by them.
    expect((await call(`${running.url}/api/v1/pair/hello`, { ca, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ typed: true }) })).status).not.toBe(429);
  });

  it('refuses the stream to agents and to requests without a credential', async () => {
    expect((await call(`${running.url}/api/v1/events`, { ca, headers: { authorization: `Bearer ${agentToken}` } })).status).toBe(403);
    expect((await call(`${running.url}/api/v1/events`, { ca })).status).toBe(401);
  });
});
