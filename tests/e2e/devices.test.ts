import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { call } from '../fixtures/https-client.js';
import { DeviceSigner } from '../fixtures/device-signer.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { auditRecords } from '../fixtures/audit-records.js';

/**
 * The LAN half against the real HTTPS server on loopback (SPEC §9, §11): an agent waits on a T2
 * action, a phone (WebCrypto device key) approves it, the agent's wait returns; T3 is refused to
 * the phone; a stolen bearer without the device key can neither approve nor HALT; a revoked device
 * is refused at once; junk tokens cost no Argon2 work.
 */
describe('agents and devices over HTTPS', () => {
  let tree: TempTree;
  let running: Running;
  let ca = '';
  let agentToken = '';
  let phoneToken = '';
  let phoneId = '';
  let phone: DeviceSigner;
  let app = '';

  beforeAll(async () => {
    tree = tempTree('oracle-devices-');
    app = tree.dir('projects/app');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write, fs.delete, input.synth] }\n`);
    running = await startServer({ home: tree.dir('home'), policy, port: 0 });
    ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    agentToken = (await running.credentials.issue('ag', 'claude-code')).token;
    phone = await DeviceSigner.create();
    const issued = await running.credentials.issue('dev', 'test phone', { profile: 'phone', public_key_jwk: phone.publicJwk as Record<string, unknown> });
    phoneToken = issued.token;
    phoneId = issued.id;
  });
  afterAll(async () => {
    await running.close();
    tree.dispose();
  });

  const agent = (path: string, body?: unknown) =>
    call(`${running.url}${path}`, { ca, method: body === undefined ? 'GET' : 'POST', headers: { authorization: `Bearer ${agentToken}` }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const signed = async (path: string, body: unknown, token = phoneToken, signer: DeviceSigner | null = phone) => {
    const text = JSON.stringify(body);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(signer === null ? {} : await signer.headers('POST', path, text)) };
    return call(`${running.url}${path}`, { ca, method: 'POST', headers, body: text });
  };
  const cards = async () => ((await call(`${running.url}/api/v1/approvals`, { ca, headers: { authorization: `Bearer ${phoneToken}` } })).body['approvals'] ?? []) as { approval_id: string; nonce: string; arg_hash: string; tier: string; tool: string }[];
  const nextCard = async (tool: string) => {
    for (let i = 0; i < 100; i++) {
      const card = (await cards()).find((c) => c.tool === tool);
      if (card !== undefined) return card;
      await new Promise((r) => setTimeout(r, 30));
    }
    throw new Error('no card');
  };

  it('a phone approves a T2 action and the agent’s wait returns with the result', async () => {
    writeFileSync(`${app}/old.txt`, 'x');
    const waiting = agent('/api/v1/actions?wait=20', { tool: 'fs.delete', args: { path: `${app}/old.txt` } });
    const card = await nextCard('fs.delete');
    expect(card.tier).toBe('T2');
    const approved = await signed(`/api/v1/approvals/${card.approval_id}/approve`, { nonce: card.nonce, arg_hash: card.arg_hash });
    expect(approved.status).toBe(200);
    const result = await waiting;
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ executed: true, decision: 'needs-approval' });
  });

  it('refuses T3 to the phone (the server decides, not the UI)', async () => {
    const waiting = agent('/api/v1/actions?wait=2', { tool: 'input.synth', args: { text: 'hi' } });
    const card = await nextCard('input.synth');
    const refused = await signed(`/api/v1/approvals/${card.approval_id}/approve`, { nonce: card.nonce, arg_hash: card.arg_hash });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'APPROVAL_PROFILE' } });
    const result = await waiting;
    expect(result.status).toBe(202);
    expect(result.body).toMatchObject({ status: 'pending', executed: false });
    expect(result.body).not.toHaveProperty('error');
  });

  it('a stolen bearer token without the device key can read but cannot approve or HALT; replays are refused', async () => {
    expect(phone.extractable).toBe(false);
    expect((await call(`${running.url}/api/v1/approvals`, { ca, headers: { authorization: `Bearer ${phoneToken}` } })).status).toBe(200);
    const card = (await cards()).find((c) => c.tool === 'input.synth');
    if (card === undefined) throw new Error('no card');
    const thief = await DeviceSigner.create();
    expect((await signed(`/api/v1/approvals/${card.approval_id}/deny`, { nonce: card.nonce, arg_hash: card.arg_hash }, phoneToken, null)).status).toBe(403);
    expect((await signed(`/api/v1/approvals/${card.approval_id}/deny`, { nonce: card.nonce, arg_hash: card.arg_hash }, phoneToken, thief)).body).toMatchObject({ error: { message: 'the device signature does not verify' } });
    expect((await signed('/api/v1/halt', { reason: 'x' }, phoneToken, thief)).status).toBe(403);
    expect(running.runtime.mode()).toBe('normal');
    // A captured signed request replayed verbatim is refused (its counter was spent).
    const text = JSON.stringify({ reason: 'replay' });
    const headers = { authorization: `Bearer ${phoneToken}`, ...(await phone.headers('POST', '/api/v1/halt', text, Date.now() - 200_000)) };
    expect((await call(`${running.url}/api/v1/halt`, { ca, method: 'POST', headers, body: text })).body).toMatchObject({ error: { message: 'the signature time is outside the allowed window' } });
  });

  it('a phone can HALT (signed) but never resume; the agent is then denied', async () => {
    const halted = await signed('/api/v1/halt', { reason: 'from the phone' });
    expect(halted.body).toMatchObject({ mode: 'halted' });
    expect((await signed('/api/v1/resume', {})).status).toBe(403);
    const denied = await agent('/api/v1/actions', { tool: 'fs.read', args: { path: `${app}/x` } });
    expect(denied.body).toMatchObject({ decision: 'deny', code: 'HALTED' });
    await running.runtime.resume('desktop');
  });

  it('desktop login works once, from loopback, and the desktop resumes', async () => {
    const code = new URL(running.loginUrl).searchParams.get('code') ?? '';
    const login = await call(`${running.url}/login?code=${code}`, { ca });
    expect(login.status).toBe(200);
    const cookie = login.headers['set-cookie']?.[0] ?? '';
    expect(cookie).toMatch(/HttpOnly/u);
    expect(cookie).toMatch(/SameSite=Strict/u);
    expect((await call(`${running.url}/login?code=${code}`, { ca })).status).toBe(401);
    await running.runtime.halt('test', 'desktop');
    const session = cookie.split(';')[0] ?? '';
    // Cross-site requests riding on the cookie are refused: foreign origin, cross-site fetch, non-JSON.
    for (const headers of [
      { cookie: session, 'content-type': 'application/json', origin: 'https://127.0.0.1:1' },
      { cookie: session, 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' },
      { cookie: session, 'content-type': 'text/plain' },
    ]) {
      expect((await call(`${running.url}/api/v1/resume`, { ca, method: 'POST', headers })).status).toBe(403);
    }
    expect(running.runtime.mode()).toBe('halted');
    const resumed = await call(`${running.url}/api/v1/resume`, { ca, method: 'POST', headers: { cookie: session, 'content-type': 'application/json', origin: running.url } });
    expect(resumed.body).toMatchObject({ mode: 'normal' });
    // A revoke from the screen is on the record (red team, session 32: no revoke was audited).
    const spare = await running.credentials.issue('dev', 'spare phone', { profile: 'phone' });
    const revoked = await call(`${running.url}/api/v1/devices/${spare.id}/revoke`, { ca, method: 'POST', headers: { cookie: session, 'content-type': 'application/json', origin: running.url } });
    expect(revoked.status).toBe(200);
    expect(await revokeRecord(spare.id)).toMatchObject({ kind: 'pairing', outcome: 'revoked', actor: 'desktop' });
  });

  const revokeRecord = async (id: string) => {
    for (let i = 0; i < 100; i++) {
      const found = auditRecords(running.runtime.gate.home).find((r) => r['outcome'] === 'revoked' && (r['detail'] as { credential?: string } | undefined)?.credential === id);
      if (found !== undefined) return found;
      await new Promise((r) => setTimeout(r, 20));
    }
    return undefined;
  };

  it('keeps a revoke made by another process (the CLI) when the server writes the store later', async () => {
    const alice = await running.credentials.issue('ag', 'claude-code');
    const agentCall = () => call(`${running.url}/api/v1/actions/ap_none`, { ca, headers: { authorization: `Bearer ${alice.token}` } });
    expect((await agentCall()).status).toBe(404);
    const { CredentialStore } = await import('../../server/adapters/credentials-store.js');
    expect(CredentialStore.open(join(running.runtime.gate.home, 'data')).revoke(alice.id)).toBe(true);
    const spare = await running.credentials.issue('dev', 'spare', { profile: 'phone' }); // the server writes the file again
    expect(running.credentials.revoke(spare.id)).toBe(true);
    expect((await agentCall()).status).toBe(401);
    expect(CredentialStore.open(join(running.runtime.gate.home, 'data')).get(alice.id)?.revoked_at).not.toBeNull();
    // The gate saw the other process's revoke and put it on the record.
    expect(await revokeRecord(alice.id)).toMatchObject({ kind: 'pairing', outcome: 'revoked', actor: 'cli', detail: { kind: 'ag' } });
  });

  it('refuses a revoked device at once, and junk tokens cost no Argon2 work', async () => {
    const before = running.credentials.hashCalls;
    for (let i = 0; i < 20; i++) {
      const junk = `oracle_dev_0123456789abcdef_${'A'.repeat(43)}`;
      expect((await call(`${running.url}/api/v1/approvals`, { ca, headers: { authorization: `Bearer ${junk}` } })).status).toBe(401);
      expect((await call(`${running.url}/api/v1/approvals`, { ca, headers: { authorization: 'Bearer nonsense' } })).status).toBe(401);
    }
    expect(running.credentials.hashCalls).toBe(before);
    expect(running.credentials.revoke(phoneId)).toBe(true);
    expect((await call(`${running.url}/api/v1/approvals`, { ca, headers: { authorization: `Bearer ${phoneToken}` } })).status).toBe(401);
  });
});
