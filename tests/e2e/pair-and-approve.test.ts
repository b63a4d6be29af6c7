import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { SIGNATURE_HEADERS, signingInput } from '../../shared/signing.js';
import { canonicalJson } from '../../server/core/audit/record.js';
import { call } from '../fixtures/https-client.js';
import { pair, PhoneSession, type Paired } from '../fixtures/phone-client.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * The whole LAN story against `oracle serve`'s own server (SPEC §9, §9a, §11): the desktop opens
 * a pairing session, a WebCrypto phone pairs from the QR URL, the desktop compares and confirms,
 * the phone approves an agent's T2 action with its device key and the agent's wait returns; the
 * same phone is refused T3.
 */
describe('pair a phone, then approve from it', () => {
  let tree: TempTree;
  let running: Running;
  let ca = '';
  let agentToken = '';
  let paired: Paired;
  const desktop = () => ({ authorization: `Desktop ${running.desktop.localToken}` });

  beforeAll(async () => {
    tree = tempTree('oracle-pair-approve-');
    tree.dir('projects/app');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write, fs.delete, input.synth] }\n`);
    running = await startServer({ home: tree.dir('home'), policy, port: 0 });
    ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    agentToken = (await running.credentials.issue('ag', 'claude-code')).token;
  });
  afterAll(async () => {
    await running.close();
    tree.dispose();
  });

  it('pairs from the QR URL with the desktop confirming the comparison code', async () => {
    const started = await call(`${running.url}/api/v1/pair/start`, { ca, method: 'POST', headers: desktop(), body: JSON.stringify({ mode: 'qr' }) });
    expect(started.status).toBe(201);
    const url = String(started.body['url']);
    expect(url).toContain('#v=1&');
    const transport = { post: async (path: string, body: unknown) => {
      const reply = await call(`${running.url}${path}`, { ca, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: reply.status, body: reply.body as unknown };
    } };
    const phone = PhoneSession.fromQr(url, transport);
    paired = await pair(phone, 'test phone', async (code, pid) => {
      const seen = await call(`${running.url}/api/v1/pair/sessions/${pid}`, { ca, headers: desktop() });
      expect(seen.body).toMatchObject({ name: 'test phone', comparison_code: code });
      const confirmed = await call(`${running.url}/api/v1/pair/confirm`, { ca, method: 'POST', headers: desktop(), body: JSON.stringify({ pid, accept: true }) });
      expect(confirmed.status).toBeLessThan(300);
    });
    expect(paired.token).toMatch(/^oracle_dev_/u);
    expect(paired.deviceKey.privateKey.extractable).toBe(false);
    expect(running.credentials.list('dev').map((d) => d.name)).toContain('test phone');
  });

  const signedPost = async (path: string, body: unknown) => {
    const text = JSON.stringify(body);
    const time = Date.now();
    const counter = ++counterValue;
    const hash = Buffer.from(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))).toString('hex');
    const input = new TextEncoder().encode(signingInput({ method: 'POST', path, bodySha256Hex: hash, time, counter }));
    const signature = await globalThis.crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, paired.deviceKey.privateKey, input);
    return call(`${running.url}${path}`, {
      ca,
      method: 'POST',
      body: text,
      headers: { authorization: `Bearer ${paired.token}`, [SIGNATURE_HEADERS.time]: String(time), [SIGNATURE_HEADERS.counter]: String(counter), [SIGNATURE_HEADERS.signature]: Buffer.from(signature).toString('base64url') },
    });
  };
  let counterValue = 0;
  const card = async (tool: string) => {
    for (let i = 0; i < 100; i++) {
      const list = (await call(`${running.url}/api/v1/approvals`, { ca, headers: { authorization: `Bearer ${paired.token}` } })).body['approvals'] as { approval_id: string; nonce: string; arg_hash: string; tool: string }[];
      const found = list.find((c) => c.tool === tool);
      if (found !== undefined) return found;
      await new Promise((r) => setTimeout(r, 30));
    }
    throw new Error('no card');
  };

  it('on every start the phone checks a fresh nonce signature against the pin it stored', async () => {
    const subtle = globalThis.crypto.subtle;
    const nonce = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(16))).toString('base64url');
    const attest = await call(`${running.url}/api/v1/attest?nonce=${nonce}`, { ca, headers: { authorization: `Bearer ${paired.token}` } });
    const spki = Buffer.from(String(attest.body['spki']), 'base64url');
    expect(Buffer.from(await subtle.digest('SHA-256', spki)).equals(Buffer.from(paired.k))).toBe(true);
    const key = await subtle.importKey('spki', spki, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
    const ok = await subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, Buffer.from(String(attest.body['sig']), 'base64url'), new TextEncoder().encode(`oracle-attest-v1\n${nonce}`));
    expect(ok).toBe(true);
    // A different key (a changed certificate) would not match the stored pin.
    const other = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const otherSpki = new Uint8Array(await subtle.exportKey('spki', other.publicKey));
    expect(Buffer.from(await subtle.digest('SHA-256', otherSpki)).equals(Buffer.from(paired.k))).toBe(false);
  });

  it('approves a T2 action from the paired phone and the agent’s wait returns; T3 is refused', async () => {
    writeFileSync(`${tree.root}/projects/app/old.txt`, 'x');
    const waiting = call(`${running.url}/api/v1/actions?wait=20`, { ca, method: 'POST', headers: { authorization: `Bearer ${agentToken}` }, body: JSON.stringify({ tool: 'fs.delete', args: { path: `${tree.root}/projects/app/old.txt` } }) });
    const t2 = await card('fs.delete');
    // The card is canonical JSON signed with the TLS key; verified before offering approve.
    const { card_sig: sig, ...unsigned } = t2 as unknown as Record<string, unknown>;
    const spki = Buffer.from(String((await call(`${running.url}/api/v1/attest?nonce=${'A'.repeat(22)}`, { ca, headers: { authorization: `Bearer ${paired.token}` } })).body['spki']), 'base64url');
    const key = await globalThis.crypto.subtle.importKey('spki', spki, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
    expect(await globalThis.crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, Buffer.from(String(sig), 'base64url'), new TextEncoder().encode(canonicalJson(unsigned)))).toBe(true);
    expect((await signedPost(`/api/v1/approvals/${t2.approval_id}/approve`, { nonce: t2.nonce, arg_hash: t2.arg_hash })).status).toBe(200);
    expect((await waiting).body).toMatchObject({ executed: true });

    void call(`${running.url}/api/v1/actions?wait=0`, { ca, method: 'POST', headers: { authorization: `Bearer ${agentToken}` }, body: JSON.stringify({ tool: 'input.synth', args: { text: 'x' } }) });
    const t3 = await card('input.synth');
    const refused = await signedPost(`/api/v1/approvals/${t3.approval_id}/approve`, { nonce: t3.nonce, arg_hash: t3.arg_hash });
    expect(refused.body).toMatchObject({ error: { code: 'APPROVAL_PROFILE' } });
  });
});
