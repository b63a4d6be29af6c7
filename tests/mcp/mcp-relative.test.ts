import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATE_META_KEY } from '../../server/mcp/result.js';
import { MCP_TOOLS } from '../../server/mcp/tools.js';
import { lookupTool } from '../../server/core/tools/registry.js';
import type { Running } from '../../server/main.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { gateAndHost, mcpHost, textOf } from '../fixtures/mcp-host.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

const actionId = (result: unknown): unknown => (result as { _meta?: Record<string, Record<string, unknown> | undefined> })._meta?.[GATE_META_KEY]?.['action_id'];

/**
 * A relative path from a model means the folder its host started `oracle mcp` in (for most hosts,
 * the project), not the running gate's working directory (a service's is its own); the gate still
 * judges the absolute path.
 */
describe('oracle mcp: relative paths are the host folder’s', () => {
  let tree: TempTree;
  let running: Running;
  let client: Client;
  let app = '';

  beforeAll(async () => {
    tree = tempTree('oracle-mcp-relative-');
    app = tree.dir('projects/app');
    tree.file('projects/app/notes.md', 'notes of the app\n');
    tree.file('projects/other/notes.md', 'notes of another project\n');
    // The gate runs from somewhere else entirely, as a service would.
    ({ running, client } = await gateAndHost(tree, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms:\n  git: { subcommands: { allow: [status] } }\nprincipals:\n  agents:\n    mcp: { capabilities: [fs.read, fs.write, proc.spawn] }\n`, app));
  });
  afterAll(async () => {
    await client.close();
    await running.close();
    tree.dispose();
  });

  it('reads, writes and edits relative paths in the host folder, and says so at initialize', async () => {
    expect(client.getInstructions()).toContain(`Relative paths resolve against \`${app}\``);
    expect(textOf(await client.callTool({ name: 'fs_read', arguments: { path: 'notes.md' } }))).toBe('notes of the app\n');
    expect(textOf(await client.callTool({ name: 'fs_read', arguments: { path: '../other/notes.md' } }))).toBe('notes of another project\n');
    const written = await client.callTool({ name: 'fs_write', arguments: { path: 'src/new.ts', content: 'export {};\n' } });
    expect(written.isError, textOf(written)).not.toBe(true);
    const edited = await client.callTool({ name: 'fs_edit', arguments: { path: 'src/new.ts', edits: [{ old_string: 'export {};', new_string: 'export const a = 1;' }] } });
    expect(edited.isError, textOf(edited)).not.toBe(true);
    expect(textOf(await client.callTool({ name: 'fs_read', arguments: { path: join(app, 'src', 'new.ts') } }))).toBe('export const a = 1;\n');
    // What the gate judged and logged is the absolute path.
    const decision = auditRecords(running.runtime.gate.home).find((r) => r['action_id'] === actionId(written) && r['kind'] === 'decision');
    expect(String(decision?.['args_preview'])).toContain(join(app, 'src', 'new.ts'));
  });

  it('refuses a path starting with `~` (never a folder called `~` in the host folder); `./~name` is a file of that name', async () => {
    for (const [name, args] of [['fs_write', { path: '~/notes.md', content: 'x' }], ['fs_mkdir', { path: '~/scratch' }], ['fs_read', { path: '~' }]] as const) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, name).toBe(true);
      expect(textOf(r), name).toMatch(/PATH_EXPANSION/u);
    }
    expect(existsSync(join(app, '~'))).toBe(false);
    const named = await client.callTool({ name: 'fs_write', arguments: { path: './~draft.md', content: 'x' } });
    expect(named.isError, textOf(named)).not.toBe(true);
    expect(existsSync(join(app, '~draft.md'))).toBe(true);
  });

  it('tells the model, for every path argument it resolves, that a relative one is the host folder’s', async () => {
    const { tools } = await client.listTools();
    const resolved = MCP_TOOLS.flatMap((def) => (lookupTool(def.tool)?.paths ?? []).filter((spec) => spec.list !== true).map((spec) => ({ tool: def.name, key: spec.key })));
    expect(resolved.map((r) => `${r.tool}.${r.key}`)).toEqual(expect.arrayContaining(['git_status.repo', 'fs_search.path', 'fs_move.from', 'exec_run.cwd']));
    for (const { tool, key } of resolved) {
      const property = (tools.find((t) => t.name === tool)?.inputSchema.properties as Record<string, { description?: string }> | undefined)?.[key];
      expect(property?.description, `${tool}.${key}`).toContain('a relative one resolves against the folder this MCP server was started in');
    }
  });

  it('runs a program in a relative folder of the host folder', async () => {
    const ran = await client.callTool({ name: 'exec_run', arguments: { program: 'git', args: ['status'], cwd: '.' } });
    const decision = auditRecords(running.runtime.gate.home).find((r) => r['action_id'] === actionId(ran) && r['kind'] === 'decision');
    expect(String(decision?.['args_preview'])).toContain(`"cwd":"${app}"`);
  });

  it('runs a program in the host folder when the model names no cwd and a scope holds the folder', async () => {
    const ran = await client.callTool({ name: 'exec_run', arguments: { program: 'git', args: ['status'] } });
    const decision = auditRecords(running.runtime.gate.home).find((r) => r['action_id'] === actionId(ran) && r['kind'] === 'decision');
    expect(String(decision?.['args_preview'])).toContain(`"cwd":"${app}"`);
    expect(decision?.['decision']).toBe('allow');
  });

  it('runs a program in an empty folder of its own when no scope holds the host folder', async () => {
    const outside = tree.dir('outside');
    const host = await mcpHost(['--home', running.runtime.gate.home], outside);
    try {
      const ran = await host.client.callTool({ name: 'exec_run', arguments: { program: 'git', args: ['status'] } });
      const decision = auditRecords(running.runtime.gate.home).find((r) => r['action_id'] === actionId(ran) && r['kind'] === 'decision');
      expect(decision?.['decision']).toBe('allow');
      expect(String(decision?.['args_preview'])).not.toContain('"cwd"');
      // git found no repository in the job's empty folder: it did not run where the host is.
      expect(textOf(ran)).toMatch(/not a git repository/u);
    } finally {
      await host.client.close();
    }
  });
});
