import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runOracle } from './run-oracle.js';

/**
 * `oracle secrets` with a gate running on the home (one gate per home): the built command asks the
 * gate, which changes its own store, hides a new value from then on without a restart, and audits
 * each change by name in its chain. The value is never printed, returned or logged.
 */
describe('oracle secrets through the running gate', () => {
  let tree: TempTree;
  let running: Running;
  let home = '';
  const value = 'the-words-only-the-store-knows-0815';
  // This run's own name: on a machine with a keyring, the store is shared across homes.
  const api = `oracle-test-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    tree = tempTree('oracle-secrets-cli-');
    home = tree.dir('home');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, 'egress:\n  allow: [{ host: "127.0.0.1:9", why: never reached }]\n');
    running = await startServer({ home, policy, port: 0 });
  });
  afterAll(async () => {
    await running.close();
    tree.dispose();
  });

  it('stores, lists and deletes through the gate, which hides the new value at once', async () => {
    const set = await runOracle(['secrets', 'set', api, '--home', home], `${value}\n`);
    expect(set, set.stderr).toMatchObject({ code: 0, stdout: `stored ${api} in the running gate's store\n` });
    const listed = await runOracle(['secrets', 'list', '--home', home]);
    expect(listed).toMatchObject({ code: 0, stdout: `${api}\n` });
    // The gate knows the value now, without a restart: a request holding it is refused when judged.
    const fetched = await running.runtime.run({ tool: 'net.fetch', args: { url: 'http://127.0.0.1:9/', headers: { 'x-note': value } } });
    expect(fetched).toMatchObject({ decision: 'deny', code: 'EGRESS_DENIED', executed: false });
    const removed = await runOracle(['secrets', 'delete', api, '--home', home]);
    expect(removed).toMatchObject({ code: 0, stdout: `deleted ${api}\n` });
    expect(await runOracle(['secrets', 'delete', api, '--home', home])).toMatchObject({ code: 1, stdout: `no secret named ${api}\n` });
    expect((await runOracle(['secrets', 'list', '--home', home])).stdout).toBe('');
    const changes = auditRecords(home).filter((r) => r['kind'] === 'secret.access');
    expect(changes.map((r) => [r['outcome'], r['detail']])).toEqual([
      ['set', { names: [api] }],
      ['delete', { names: [api] }],
      ['delete', { names: [api] }],
    ]);
    const log = join(home, 'logs', 'audit');
    for (const name of readdirSync(log)) expect(readFileSync(join(log, name), 'utf8'), name).not.toContain(value);
    for (const run of [set, listed, removed]) expect(run.stdout + run.stderr).not.toContain(value);
  });

  it('says what the store refused, and changes nothing on a bad name', async () => {
    const bad = await runOracle(['secrets', 'set', '../x', '--home', home], value);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^oracle: the gate refused: invalid_name: /mu);
    expect(bad.stderr).not.toContain(value);
  });

  it('refuses the store to anything but the CLI on this machine', async () => {
    const token = (await running.credentials.issue('ag', 'someone')).token;
    const ca = readFileSync(join(home, 'certs', 'ca.crt'), 'utf8');
    const status = (method: string, path: string, body?: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = request(`${running.url}${path}`, { method, ca, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => {
            resolve(res.statusCode ?? 0);
          });
        });
        req.on('error', reject);
        req.end(body);
      });
    expect(await status('GET', '/api/v1/desk/secrets')).toBe(403);
    expect(await status('PUT', `/api/v1/desk/secrets/${api}`, JSON.stringify({ value }))).toBe(403);
    expect((await runOracle(['secrets', 'list', '--home', home])).stdout).toBe('');
  });
});

/** Without a gate on the home the command opens the store and the audit log itself: the same answers, audited the same way. */
describe('oracle secrets with no gate running', () => {
  let tree: TempTree;
  let home = '';
  const value = 'the-words-only-this-store-knows-2207';
  const name = `oracle-test-${randomBytes(4).toString('hex')}`;
  beforeAll(() => {
    tree = tempTree('oracle-secrets-headless-');
    home = tree.dir('home');
  });
  afterAll(() => {
    tree.dispose();
  });

  it('stores, lists and deletes, audits each change by name first, and never prints the value', async () => {
    const set = await runOracle(['secrets', 'set', name, '--home', home], `${value}\n`);
    expect(set, set.stderr).toMatchObject({ code: 0, stdout: `stored ${name}\n` });
    const again = await runOracle(['secrets', 'set', name, '--home', home], value);
    expect(again).toMatchObject({ code: 0, stdout: `stored ${name} (replacing the old value)\n` });
    expect(await runOracle(['secrets', 'list', '--home', home])).toMatchObject({ code: 0, stdout: `${name}\n` });
    const removed = await runOracle(['secrets', 'delete', name, '--home', home]);
    expect(removed).toMatchObject({ code: 0, stdout: `deleted ${name}\n` });
    expect(await runOracle(['secrets', 'delete', name, '--home', home])).toMatchObject({ code: 1, stdout: `no secret named ${name}\n` });
    const bad = await runOracle(['secrets', 'set', '../x', '--home', home], value);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^oracle: the secret store refused: invalid_name: /mu);
    const changes = auditRecords(home).filter((r) => r['kind'] === 'secret.access');
    // The refused name is audited as attempted, then as failed (the desk writes before it changes anything).
    expect(changes.map((r) => r['outcome'])).toEqual(['set', 'set', 'delete', 'delete', 'set', 'set-failed']);
    const log = join(home, 'logs', 'audit');
    for (const file of readdirSync(log)) expect(readFileSync(join(log, file), 'utf8'), file).not.toContain(value);
    for (const run of [set, again, removed, bad]) expect(run.stdout + run.stderr).not.toContain(value);
  });
});
