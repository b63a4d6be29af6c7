import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { GATE_META_KEY } from '../../server/mcp/result.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runOracle } from '../cli/run-oracle.js';
import { mcpHost, textOf } from '../fixtures/mcp-host.js';

/**
 * One gate per home (SPEC §12): with `oracle serve` running, every `oracle mcp` is its client.
 * Two MCP hosts (the official SDK's client, each its own `oracle mcp` process through the built
 * command) share the gate: a T2 call from one is approved by a paired device and its result
 * returns to that host, and the gate's audit log holds every call once.
 */
describe('oracle mcp with a gate running', () => {
  let tree: TempTree;
  let home = '';
  let policy = '';
  let app = '';
  let running: Running;
  const hosts: { client: Client; stderr: () => string }[] = [];

  const connect = () => mcpHost(['--home', home, '--wait', '20']);

  beforeAll(async () => {
    tree = tempTree('oracle-mcp-client-');
    home = tree.dir('home');
    app = tree.dir('projects/app');
    writeFileSync(`${app}/a.txt`, 'hello from a\n');
    writeFileSync(`${app}/old.txt`, 'old\n');
    policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    mcp: { capabilities: [fs.read, fs.write, fs.delete] }\n`);
    running = await startServer({ home, policy, port: 0 });
    hosts.push(await connect(), await connect());
  });
  afterAll(async () => {
    for (const host of hosts) await host.client.close();
    await running.close();
    tree.dispose();
  });

  it('serves two MCP hosts at once on the one home, both clients of the running gate', async () => {
    const reads = await Promise.all(hosts.map((h) => h.client.callTool({ name: 'fs_read', arguments: { path: `${app}/a.txt` } })));
    for (const read of reads) expect(read.content).toEqual([{ type: 'text', text: 'hello from a\n' }]);
    for (const host of hosts) expect(host.stderr()).toContain(`a client of the ORACLE gate at ${running.url}`);
    // The gate's own log holds both reads: one audit chain for every host.
    const ids = reads.map((r) => (r._meta?.[GATE_META_KEY] as { action_id?: string } | undefined)?.action_id);
    const logged = auditRecords(home).filter((r) => ids.includes(r['action_id'] as string));
    expect(new Set(logged.map((r) => r['action_id'])).size).toBe(2);
  });

  it('asks a person about a T2 call from one host; the approval from a paired device reaches that host', async () => {
    const [first] = hosts;
    if (first === undefined) throw new Error('no host');
    const deleting = first.client.callTool({ name: 'fs_delete', arguments: { path: `${app}/old.txt` } });
    let card: ReturnType<typeof running.runtime.desk.list>[number] | undefined;
    for (let i = 0; i < 200 && card === undefined; i++) {
      card = running.runtime.desk.list().find((c) => c.state === 'pending');
      if (card === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    if (card === undefined) throw new Error('no card reached the gate');
    expect(card.tier).toBe('T2');
    const phone = { id: 'dev_phone', kind: 'device' as const, approveT2: true, approveT3: false };
    await running.runtime.desk.answer(card.approval_id, { approver: phone, verdict: 'approve', nonce: card.nonce, argHash: card.arg_hash });
    const result = await deleting;
    expect(result.isError, textOf(result)).not.toBe(true);
    expect(result._meta?.[GATE_META_KEY]).toMatchObject({ decision: 'needs-approval', tier: 'T2', executed: true, undo_id: expect.stringMatching(/^un_/u) as unknown });
    expect(existsSync(`${app}/old.txt`)).toBe(false);
    // The action is in the gate's log once: decided, dispatched, done.
    const actionId = (result._meta?.[GATE_META_KEY] as { action_id: string }).action_id;
    const records = auditRecords(home).filter((r) => r['action_id'] === actionId);
    expect(records.map((r) => r['kind'])).toContain('decision');
    expect(records.filter((r) => r['outcome'] === 'ok')).toHaveLength(1);
    const verify = await runOracle(['audit', 'verify', '--home', home]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });

  it('tells a host that asked for progress that a call waiting for a person is still going', async () => {
    const [first] = hosts;
    if (first === undefined) throw new Error('no host');
    writeFileSync(`${app}/later.txt`, 'later\n');
    const heard: { progress: number; message?: string | undefined }[] = [];
    const deleting = first.client.callTool({ name: 'fs_delete', arguments: { path: `${app}/later.txt` } }, undefined, { onprogress: (p) => heard.push(p), resetTimeoutOnProgress: true });
    for (let i = 0; i < 200 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(heard[0]?.message).toContain('waiting for a person');
    const card = running.runtime.desk.list().find((c) => c.state === 'pending');
    if (card === undefined) throw new Error('no card');
    const phone = { id: 'dev_phone', kind: 'device' as const, approveT2: true, approveT3: false };
    await running.runtime.desk.answer(card.approval_id, { approver: phone, verdict: 'approve', nonce: card.nonce, argHash: card.arg_hash });
    expect((await deleting).isError).not.toBe(true);
  }, 30_000);

  it('oracle_await: a cut-off wait stops waiting (nothing runs unseen, the card stays); once the action ran, asking again returns its result, never a second run', async () => {
    const host = await mcpHost(['--home', home]);
    try {
      writeFileSync(`${app}/awaited.txt`, 'awaited\n');
      const pending = textOf(await host.client.callTool({ name: 'fs_delete', arguments: { path: `${app}/awaited.txt` } }));
      const id = /approval `([^`]+)`/u.exec(pending)?.[1] ?? '';
      expect(id, pending).not.toBe('');
      // The host gives up on the wait (as the SDK's own 60 s request timeout does): it cancels the call.
      const abort = new AbortController();
      const cut = host.client.callTool({ name: 'oracle_await', arguments: { approval_id: id, wait: 60 } }, undefined, { signal: abort.signal });
      await new Promise((r) => setTimeout(r, 300));
      abort.abort();
      await expect(cut).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 300));
      // The person approves afterwards: nothing runs until the agent waits again.
      const card = running.runtime.desk.list().find((c) => c.approval_id === id);
      expect(card?.state).toBe('pending');
      if (card === undefined) throw new Error('no card');
      const phone = { id: 'dev_phone', kind: 'device' as const, approveT2: true, approveT3: false };
      await running.runtime.desk.answer(card.approval_id, { approver: phone, verdict: 'approve', nonce: card.nonce, argHash: card.arg_hash });
      await new Promise((r) => setTimeout(r, 500));
      expect(existsSync(`${app}/awaited.txt`)).toBe(true);
      const ran = await host.client.callTool({ name: 'oracle_await', arguments: { approval_id: id, wait: 5 } });
      expect(ran.isError, textOf(ran)).not.toBe(true);
      expect(existsSync(`${app}/awaited.txt`)).toBe(false);
      // Asked again (a host whose own request timed out while it ran): the same result, no second run.
      const again = await host.client.callTool({ name: 'oracle_await', arguments: { approval_id: id, wait: 0 } });
      expect(again.isError, textOf(again)).not.toBe(true);
      const actionId = (ran._meta?.[GATE_META_KEY] as { action_id: string }).action_id;
      expect((again._meta?.[GATE_META_KEY] as { action_id: string }).action_id).toBe(actionId);
      expect(auditRecords(home).filter((r) => r['action_id'] === actionId && r['kind'] === 'dispatched')).toHaveLength(1);
      // The wait a schema offers is the one the gate keeps.
      const { tools } = await host.client.listTools();
      const wait = (tools.find((t) => t.name === 'oracle_await')?.inputSchema.properties as Record<string, { maximum?: number }> | undefined)?.['wait'];
      expect(wait?.maximum).toBe(300);
    } finally {
      await host.client.close();
    }
  }, 30_000);

  it('keeps its own credential in the home; once revoked it stays revoked; it fails closed once the gate is gone', async () => {
    const token = readFileSync(join(home, 'data', 'agent-mcp.token'), 'utf8').trim();
    const id = /^oracle_(ag_[0-9a-f]+)_/u.exec(token)?.[1] ?? '';
    expect(running.credentials.revoke(id)).toBe(true);
    const [first] = hosts;
    const refused = await first?.client.callTool({ name: 'fs_read', arguments: { path: `${app}/a.txt` } });
    expect(refused?.isError).toBe(true);
    expect(textOf(refused)).toContain("refused this server's credential");
    expect(readFileSync(join(home, 'data', 'agent-mcp.token'), 'utf8').trim()).toBe(token);
    await running.close();
    const [, second] = hosts;
    if (second === undefined) throw new Error('no host');
    const after = await second.client.callTool({ name: 'fs_read', arguments: { path: `${app}/a.txt` } });
    expect(after.isError).toBe(true);
    expect(textOf(after)).toContain('no ORACLE gate runs with this home any more');
  });
});
