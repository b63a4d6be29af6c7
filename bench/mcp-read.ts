import { constants, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startServer } from '../server/main.js';
import { ORACLE_BIN_PATH } from '../server/adapters/package-root.js';
import { percentiles, type Figure } from './stats.js';

/**
 * An MCP read through the gate against the reference filesystem server (issue 13, budget 1.5×):
 * one SDK client in this process with two stdio servers, `@modelcontextprotocol/server-filesystem`
 * on the project folder and `oracle mcp` as a client of a running gate on the same folder, reading
 * the same 4 KiB file. Calls alternate between the two, so both see the same machine.
 *
 * Two figures in the same rounds say where the difference lies. The same read submitted inside
 * the gate's own process (no MCP server, no local channel): the gate's own part. And one append of
 * the bytes a read adds to the audit log (its three records, measured in this run), O_DSYNC as the
 * gate's log writes them, on the same file system: the gate acknowledges a read only once its
 * records are durable (SPEC §7, issue 14), so no MCP read through it is faster than the reference
 * plus this write.
 */
const RUNS = 300;
const WARMUP = 30;

async function connect(command: string, args: readonly string[]): Promise<Client> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  const client = new Client({ name: 'oracle-bench', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command, args: [...args], env, stderr: 'ignore' }));
  return client;
}

export async function mcpReadBench(): Promise<Figure[]> {
  const root = mkdtempSync(join(tmpdir(), 'oracle-bench-mcp-'));
  const app = join(root, 'projects', 'app');
  mkdirSync(app, { recursive: true });
  const file = join(app, 'notes.md');
  const text = 'a line of notes in a project, forty-ish\n'.repeat(100);
  writeFileSync(file, text);
  const policy = join(root, 'policy.yaml');
  writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    mcp: { capabilities: [fs.read] }\n`);
  const running = await startServer({ home: join(root, 'home'), policy, port: 0 });
  const reference = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');
  const theirs = await connect(process.execPath, [reference, app]);
  const ours = await connect(process.execPath, [ORACLE_BIN_PATH, 'mcp', '--home', running.runtime.gate.home]);
  const auditDir = join(running.runtime.gate.home, 'logs', 'audit');
  const logBytes = (): number => readdirSync(auditDir).reduce((sum, name) => sum + statSync(join(auditDir, name)).size, 0);
  const durable = await open(join(root, 'durable-append'), constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC, 0o600);
  try {
    const before = logBytes();
    await ours.callTool({ name: 'fs_read', arguments: { path: file } });
    const recordBytes = Buffer.alloc(logBytes() - before, 'r');
    const read = {
      reference: async () => textOf(await theirs.callTool({ name: 'read_text_file', arguments: { path: file } })),
      oracle: async () => textOf(await ours.callTool({ name: 'fs_read', arguments: { path: file } })),
      inGate: async () => (await running.runtime.submit({ tool: 'fs.read', args: { path: file } }, 0, 'mcp')).output,
      durable: async () => {
        await durable.write(recordBytes);
        return text;
      },
    };
    const samples: Record<keyof typeof read, number[]> = { reference: [], oracle: [], inGate: [], durable: [] };
    for (let i = 0; i < WARMUP + RUNS; i++) {
      for (const which of ['reference', 'oracle', 'inGate', 'durable'] as const) {
        const t = process.hrtime.bigint();
        const got = await read[which]();
        const us = Number(process.hrtime.bigint() - t) / 1000;
        if (got !== text) throw new Error(`${which}: the read did not return the file (${String(got).slice(0, 300)})`);
        if (i >= WARMUP) samples[which].push(us);
      }
    }
    const figure = (name: string, s: number[]): Figure => {
      const mean = s.reduce((a, b) => a + b, 0) / s.length;
      return { name, runs: s.length, ...percentiles(s), per_second: Math.round(1e6 / mean) };
    };
    return [
      figure('mcp read 4 KiB: reference, @modelcontextprotocol/server-filesystem read_text_file', samples.reference),
      figure('mcp read 4 KiB: oracle mcp fs_read, client of the running gate', samples.oracle),
      figure('mcp read 4 KiB: the same read submitted inside the gate process', samples.inGate),
      figure(`mcp read 4 KiB: one O_DSYNC append of a read's audit records (${String(recordBytes.length)} B)`, samples.durable),
    ];
  } finally {
    await durable.close();
    await theirs.close();
    await ours.close();
    await running.close();
    rmSync(root, { recursive: true, force: true });
  }
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string | undefined {
  return (result.content as { text?: string }[] | undefined)?.[0]?.text;
}
