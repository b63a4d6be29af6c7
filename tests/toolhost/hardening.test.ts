import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFile, FileOpError } from '../../server/adapters/agent/files.js';
import { JobRoot } from '../../server/adapters/agent/jobs.js';
import type { Runtime } from '../../server/app/runtime.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from './runtime-fixture.js';
import { evaluate } from '../../server/core/decide/decide.js';
import { prepareAction } from '../../server/core/lifecycle/execution.js';

/** Regression tests for the toolhost review (each failed before its fix). */
describe('toolhost hardening', () => {
  let tree: TempTree;
  let runtime: Runtime;
  let app = '';
  let server: Server;
  let port = 0;
  const secretValue = 'hunter2-plain-db-password';
  beforeAll(async () => {
    tree = tempTree('oracle-hard-');
    app = tree.dir('projects/app');
    tree.dir('projects/scratch');
    server = createServer((_req, res) => {
      res.setHeader('x-token', `sk-ant-api03-${'A1b2C3d4E5f6G7h8'.repeat(4)}`);
      res.setHeader('set-cookie', 'session=abc');
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    port = typeof address === 'object' && address !== null ? address.port : 0;
    runtime = await runtimeFor(
      tree,
      `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\n  scratch: { roots: [{ path: "${tree.root}/projects/scratch", mode: rw }] }\n` +
        `deny_always: [.env]\negress: { allow: [{ host: "127.0.0.1:${String(port)}" }] }\n`,
    );
    await runtime.toolhost.env.secrets?.set('db', secretValue);
    await runtime.close();
    runtime = await runtimeFor(tree, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\n  scratch: { roots: [{ path: "${tree.root}/projects/scratch", mode: rw }] }\ndeny_always: [.env]\negress: { allow: [{ host: "127.0.0.1:${String(port)}" }] }\n`);
  });
  afterAll(async () => {
    await runtime.close();
    server.close();
    tree.dispose();
  });

  it('answers fs.read of a FIFO at once instead of blocking the gate', async () => {
    expect(spawnSync('mkfifo', [`${app}/notes.txt`]).status).toBe(0);
    const started = Date.now();
    const result = await runtime.run({ tool: 'fs.read', args: { path: `${app}/notes.txt` } });
    expect(result.error?.code).toBe('FS_NOT_A_FILE');
    // A read that blocked on the FIFO would never return; 5 s is room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('never opens a FIFO it is asked to read: a writer waiting on it stays waiting', async () => {
    const fifo = `${app}/queue.txt`;
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // The writer opens the FIFO (a synchronous open on its main thread) and waits there for a reader.
    const writer = spawn(process.execPath, ['-e', "require('node:fs').writeFileSync(process.argv[1], 'x')", fifo], { stdio: 'ignore' });
    const waiting = async (): Promise<void> => {
      for (let i = 0; i < 100; i++) {
        if (readFileSync(`/proc/${String(writer.pid)}/wchan`, 'utf8').includes('wait_for_partner')) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await waiting();
      const result = await runtime.run({ tool: 'fs.read', args: { path: fifo } });
      expect(result.error?.code).toBe('FS_NOT_A_FILE');
      // Had the gate opened it, the writer would have been let through and failed on the closed pipe.
      await new Promise((r) => setTimeout(r, 300));
      expect(writer.exitCode).toBeNull();
      expect(writer.signalCode).toBeNull();
    } finally {
      writer.kill('SIGKILL');
    }
  });

  it('redacts every stored secret value from every output, not only patterns', async () => {
    writeFileSync(`${app}/out.txt`, `DB=${secretValue}\n`);
    const result = await runtime.run({ tool: 'fs.read', args: { path: `${app}/out.txt` } });
    expect(String(result.output)).not.toContain(secretValue);
    expect(String(result.output)).toContain('[REDACTED:');
  });

  it('redacts response headers and drops cookies', async () => {
    const result = await runtime.run({ tool: 'net.fetch', args: { url: `http://127.0.0.1:${String(port)}/` } });
    const headers = (result.output as { headers: Record<string, string> }).headers;
    expect(headers['x-token']).toMatch(/^\[REDACTED:/u);
    expect(headers).not.toHaveProperty('set-cookie');
  });

  it('refuses to delete a folder that holds a path the policy denies (at the decision, and at execution)', async () => {
    mkdirSync(`${tree.root}/projects/scratch/proj`);
    writeFileSync(`${tree.root}/projects/scratch/proj/.env`, 'SECRET=1');
    const result = await runtime.run({ tool: 'fs.delete', args: { path: `${tree.root}/projects/scratch/proj` } });
    expect(result).toMatchObject({ executed: false, decision: 'deny', code: 'PATH_DENY_ALWAYS' });
    // The executor checks again on its own (the folder may have changed since the decision).
    const judged = evaluate({ tool: 'fs.delete', args: { path: `${tree.root}/projects/scratch/proj` } }, runtime.gate.context);
    expect(judged.decision.decision).toBe('allow');
    const executed = await runtime.toolhost.boundary.execute(prepareAction('fs.delete', judged.args ?? {}, { actionId: 'd', paths: judged.paths, decision: judged.decision }));
    expect(executed.result.error?.code).toBe('NOT_ALLOWED');
    expect(existsSync(`${tree.root}/projects/scratch/proj/.env`)).toBe(true);
  });

  it('writes through the directory it checked: a parent swapped for a link is refused', () => {
    const outside = tree.dir('outside');
    mkdirSync(`${app}/d`);
    expect(commitFile(`${app}/d/f.txt`, Buffer.from('x'))).toMatch(/^sha256:/u);
    // A link as the last directory, and a link further up: both refused, nothing lands outside.
    symlinkSync(outside, `${app}/link`);
    expect(() => commitFile(`${app}/link/f.txt`, Buffer.from('x'))).toThrow(FileOpError);
    mkdirSync(`${outside}/sub`);
    expect(() => commitFile(`${app}/link/sub/f.txt`, Buffer.from('x'))).toThrow(/now resolves to/u);
    expect(readdirSync(outside)).toEqual(['sub']);
    expect(readdirSync(`${outside}/sub`)).toEqual([]);
  });

  it('cleans up a job directory the job made unreadable, instead of blocking every later job', () => {
    const root = JobRoot.open(tree.dir('jobs-trap'));
    const job = root.create();
    mkdirSync(`${job.dir}/trap/inner`, { recursive: true });
    spawnSync('chmod', ['0', `${job.dir}/trap`]);
    expect(root.remove(job)).toEqual({ ok: true });
    expect(root.blockedReason()).toBeUndefined();
  });
});
