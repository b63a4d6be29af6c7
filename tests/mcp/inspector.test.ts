import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { ORACLE_BIN } from '../cli/run-oracle.js';

/** The MCP Inspector's CLI (`@modelcontextprotocol/inspector`, pinned), a client nobody here wrote. */
const LAUNCHER = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json')), 'clients', 'launcher', 'build', 'index.js');

interface Ran {
  readonly code: number | null;
  readonly json: unknown;
  readonly stderr: string;
}

/**
 * The Inspector lists and calls `oracle mcp`'s tools through the built command (issue 13): `--cli`
 * must come first (else it starts its web UI), `-q --format json` gives one JSON line, and the
 * server gets only the SDK's default environment, so the home and policy go on its command line.
 */
describe('the MCP Inspector CLI against oracle mcp', () => {
  let tree: TempTree;
  let server: string[] = [];
  let app = '';
  let env: NodeJS.ProcessEnv = {};

  beforeAll(() => {
    tree = tempTree('oracle-inspector-');
    app = tree.dir('projects/app');
    tree.file('projects/app/hello.txt', 'hello from the inspector\n');
    tree.file('projects/app/.env', 'TOKEN=x\n');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\ndeny_always: [".env"]\nprincipals:\n  agents:\n    mcp: { capabilities: [fs.read, fs.write] }\n`);
    server = [process.execPath, ORACLE_BIN, 'mcp', '--home', tree.dir('home'), '--policy', policy];
    // Its own config and secrets in a home of its own, never the user's.
    env = { ...process.env, HOME: tree.dir('inspector-home'), MCP_INSPECTOR_SECRET_STORE: 'memory' };
  });
  afterAll(() => {
    tree.dispose();
  });

  const inspect = (args: readonly string[]): Promise<Ran> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [LAUNCHER, '--cli', '--format', 'json', '-q', ...args, '--', ...server], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
      child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        let json: unknown;
        try {
          json = JSON.parse(out);
        } catch {
          json = out;
        }
        resolve({ code, json, stderr: err });
      });
    });

  it('lists the gated tools with their schemas', async () => {
    const listed = await inspect(['--method', 'tools/list']);
    expect(listed.code, listed.stderr).toBe(0);
    const tools = (listed.json as { result: { tools: { name: string; inputSchema: { additionalProperties?: boolean } }[] } }).result.tools;
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['fs_read', 'fs_edit', 'fs_search', 'oracle_allowed', 'oracle_await']));
    expect(tools.find((t) => t.name === 'fs_read')?.inputSchema.additionalProperties).toBe(false);
  }, 90_000);

  it('calls a tool and gets the file’s text; a refusal is a tool error with the reason', async () => {
    const read = await inspect(['--method', 'tools/call', '--tool-name', 'fs_read', '--tool-args-json', JSON.stringify({ path: `${app}/hello.txt` })]);
    expect(read.code, read.stderr).toBe(0);
    expect(read.json).toMatchObject({ result: { content: [{ type: 'text', text: 'hello from the inspector\n' }] } });
    const denied = await inspect(['--method', 'tools/call', '--tool-name', 'fs_read', '--tool-args-json', JSON.stringify({ path: `${app}/.env` })]);
    // The Inspector exits 5 for a tool that answered isError.
    expect(denied.code).toBe(5);
    expect(denied.json).toMatchObject({ result: { isError: true } });
    expect(JSON.stringify(denied.json)).toContain('PATH_DENY_ALWAYS');
  }, 90_000);
});
