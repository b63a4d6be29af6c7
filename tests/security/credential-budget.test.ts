import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { formatToken } from '../../server/core/credentials/token.js';
import { DEFAULT_BUDGET } from '../../server/core/credentials/verify-budget.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { call } from '../fixtures/https-client.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * Issue 14 point 2, through the real HTTPS server: a real credential id with wrong secrets, 100
 * requests 50 at a time, costs at most the id's budget of Argon2 hashes; a repeated wrong secret
 * costs none; an agent whose credential is known goes on working; failures are audited once, in
 * aggregate.
 */
describe('failed credential checks on the real HTTPS server', () => {
  let tree: TempTree;
  let running: Running;
  let ca = '';
  let victimId = '';
  let agentToken = '';
  let home = '';
  beforeAll(async () => {
    tree = tempTree('oracle-cred-budget-');
    tree.file('projects/a.txt', 'a');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read] }\n`);
    home = tree.dir('home');
    running = await startServer({ home, policy, port: 0 });
    ca = readFileSync(join(home, 'certs', 'ca.crt'), 'utf8');
    // The victim's id is real and has never been verified in this process (as after a restart).
    victimId = (await running.credentials.issue('ag', 'claude-code')).id;
    agentToken = (await running.credentials.issue('ag', 'claude-code')).token;
  });
  afterAll(() => {
    tree.dispose();
  });

  const read = (token: string) =>
    call(`${running.url}/api/v1/actions`, { ca, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'fs.read', args: { path: `${tree.root}/projects/a.txt` } }) });

  it('spends at most the id budget of Argon2 hashes on 100 wrong secrets, 50 at a time', async () => {
    expect((await read(agentToken)).status).toBe(200);
    const before = running.credentials.hashCalls;
    const bad = Array.from({ length: 100 }, () => formatToken(victimId, randomBytes(32).toString('base64url')));
    const replies: number[] = [];
    for (let i = 0; i < bad.length; i += 50) replies.push(...(await Promise.all(bad.slice(i, i + 50).map(async (t) => (await read(t)).status))));
    expect(replies.every((s) => s === 401)).toBe(true);
    // The burst, plus at most one refill while the test runs.
    expect(running.credentials.hashCalls - before).toBeLessThanOrEqual(DEFAULT_BUDGET.perId.burst + 1);
    // The agent whose credential is known is not held up by any of it.
    expect((await read(agentToken)).status).toBe(200);
  }, 60_000);

  it('never hashes the same wrong secret twice', async () => {
    const fresh = (await running.credentials.issue('ag', 'claude-code')).id;
    const wrong = formatToken(fresh, randomBytes(32).toString('base64url'));
    const before = running.credentials.hashCalls;
    for (let i = 0; i < 10; i++) expect((await read(wrong)).status).toBe(401);
    expect(running.credentials.hashCalls - before).toBe(1);
  }, 30_000);

  it('audits the failures in aggregate, per credential, not one record each', async () => {
    await running.close();
    const failures = auditRecords(home).filter((r) => r['kind'] === 'auth.failures');
    expect(failures).toHaveLength(1);
    const counts = (failures[0]?.['detail'] as { by_credential: Record<string, number> }).by_credential;
    expect(counts[victimId]).toBe(100);
  });
});
