import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATE_META_KEY } from '../../server/mcp/result.js';
import { startServer, type Running } from '../../server/main.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { mcpHost, textOf } from '../fixtures/mcp-host.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runOracle } from '../cli/run-oracle.js';

const meta = (result: unknown) => (result as { _meta?: Record<string, Record<string, unknown> | undefined> })._meta?.[GATE_META_KEY] ?? {};

/**
 * The MCP tools beyond read and write (issue 13): what they do, that each is judged like its fs
 * action, and that each change can be undone.
 */
describe('oracle mcp: edit, search, mkdir, move and what the agent may use', () => {
  let tree: TempTree;
  let home = '';
  let app = '';
  let client: Client;
  let running: Running;

  beforeAll(async () => {
    tree = tempTree('oracle-mcp-fs-');
    home = tree.dir('home');
    app = tree.dir('projects/app');
    tree.file('projects/app/src/main.ts', '\uFEFFconst name = "old";\nexport const greeting = `hello ${name}`;\n');
    tree.file('projects/app/src/twice.ts', 'x = 1;\nx = 1;\n');
    tree.file('projects/app/.env', 'TOKEN=needle-in-env\n');
    tree.file('projects/app/notes.md', 'a needle here\nno match\nNEEDLE upper\n');
    tree.file('projects/app/node_modules/dep/index.js', 'needle in a dependency\n');
    tree.file('projects/app/keys.txt', 'key sk-ant-api03-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa needle\n');
    tree.file('outside/secret.txt', 'needle outside\n');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(
      policy,
      `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\ndeny_always: [".env"]\nprograms:\n  git: { subcommands: { allow: [status] } }\negress: { allow: [{ host: example.com }] }\nprincipals:\n  agents:\n    mcp: { capabilities: [fs.read, fs.write, fs.delete, secret.read] }\n`,
    );
    // As it is used: `oracle serve` is the gate, `oracle mcp` and `oracle undo` its clients.
    running = await startServer({ home, policy, port: 0 });
    await running.runtime.toolhost.env.secrets?.set('github', 'ghp_not-shown-to-anyone-0123456789');
    ({ client } = await mcpHost(['--home', home]));
  });
  afterAll(async () => {
    await client.close();
    await running.close();
    tree.dispose();
  });

  it('edits by exact replacement, as the exact write it makes (a byte-order mark kept), and undo restores it', async () => {
    const file = `${app}/src/main.ts`;
    const before = readFileSync(file);
    const edited = await client.callTool({ name: 'fs_edit', arguments: { path: file, edits: [{ old_string: '"old"', new_string: '"new"' }] } });
    expect(edited.isError, textOf(edited)).not.toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('\uFEFFconst name = "new";\nexport const greeting = `hello ${name}`;\n');
    // The audit log holds it as the write it made, bound to the file it was computed from.
    const id = meta(edited)['action_id'];
    const decision = auditRecords(home).find((r) => r['action_id'] === id && r['kind'] === 'decision');
    expect(decision?.['tool']).toBe('fs.write');
    expect((JSON.parse(String(decision?.['args_preview'])) as { content: string }).content).toContain('const name = "new"');
    const undo = await runOracle(['undo', String(meta(edited)['undo_id']), '--home', home]);
    expect(undo.code, undo.stdout + undo.stderr).toBe(0);
    expect(readFileSync(file)).toEqual(before);
  });

  it('refuses an edit that does not apply, with the reason, and writes nothing', async () => {
    const missing = await client.callTool({ name: 'fs_edit', arguments: { path: `${app}/src/main.ts`, edits: [{ old_string: 'absent text', new_string: 'x' }] } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('EDIT_NOT_APPLIED');
    expect(textOf(missing)).toContain('does not occur');
    const twice = await client.callTool({ name: 'fs_edit', arguments: { path: `${app}/src/twice.ts`, edits: [{ old_string: 'x = 1;', new_string: 'x = 2;' }] } });
    expect(textOf(twice)).toContain('occurs 2 times');
    const all = await client.callTool({ name: 'fs_edit', arguments: { path: `${app}/src/twice.ts`, edits: [{ old_string: 'x = 1;', new_string: 'x = 2;', replace_all: true }] } });
    expect(all.isError, textOf(all)).not.toBe(true);
    expect(readFileSync(`${app}/src/twice.ts`, 'utf8')).toBe('x = 2;\nx = 2;\n');
  });

  it('judges the path before reading it: an edit outside the scope or of a denied name learns nothing', async () => {
    const outside = await client.callTool({ name: 'fs_edit', arguments: { path: `${tree.root}/outside/secret.txt`, edits: [{ old_string: 'not there', new_string: 'x' }] } });
    expect(textOf(outside)).toContain('PATH_OUTSIDE_SCOPE');
    expect(textOf(outside)).not.toContain('does not occur');
    const env = await client.callTool({ name: 'fs_edit', arguments: { path: `${app}/.env`, edits: [{ old_string: 'TOKEN', new_string: 'X' }] } });
    expect(textOf(env)).toContain('PATH_DENY_ALWAYS');
    expect(readFileSync(`${app}/.env`, 'utf8')).toBe('TOKEN=needle-in-env\n');
  });

  it('creates folders and moves files, each undoable, never over an existing file', async () => {
    const made = await client.callTool({ name: 'fs_mkdir', arguments: { path: `${app}/src/utils/deep` } });
    expect(made.isError, textOf(made)).not.toBe(true);
    expect(statSync(`${app}/src/utils/deep`).isDirectory()).toBe(true);
    const undoMkdir = await runOracle(['undo', String(meta(made)['undo_id']), '--home', home]);
    expect(undoMkdir.code, undoMkdir.stdout + undoMkdir.stderr).toBe(0);
    expect(existsSync(`${app}/src/utils`)).toBe(false);

    writeFileSync(`${app}/a.txt`, 'moving\n');
    const moved = await client.callTool({ name: 'fs_move', arguments: { from: `${app}/a.txt`, to: `${app}/src/b.txt` } });
    expect(moved.isError, textOf(moved)).not.toBe(true);
    expect(readFileSync(`${app}/src/b.txt`, 'utf8')).toBe('moving\n');
    expect(existsSync(`${app}/a.txt`)).toBe(false);
    const over = await client.callTool({ name: 'fs_move', arguments: { from: `${app}/notes.md`, to: `${app}/src/b.txt` } });
    expect(textOf(over)).toContain('FS_EXISTS');
    expect(readFileSync(`${app}/notes.md`, 'utf8')).toContain('needle');
    const undoMove = await runOracle(['undo', String(meta(moved)['undo_id']), '--home', home]);
    expect(undoMove.code, undoMove.stdout).toBe(0);
    expect(readFileSync(`${app}/a.txt`, 'utf8')).toBe('moving\n');
    expect(existsSync(`${app}/src/b.txt`)).toBe(false);
    const outside = await client.callTool({ name: 'fs_move', arguments: { from: `${app}/a.txt`, to: `${tree.root}/outside/a.txt` } });
    expect(textOf(outside)).toContain('PATH_OUTSIDE_SCOPE');
  });

  it('tells the agent what it may use: scopes, names always refused, programs, hosts, its ceiling, the secrets it may name', async () => {
    const allowed = await client.callTool({ name: 'oracle_allowed', arguments: {} });
    expect(allowed.structuredContent).toMatchObject({
      agent: 'mcp',
      capabilities: ['fs.delete', 'fs.read', 'fs.write', 'secret.read'],
      scopes: [{ name: 'projects', roots: [{ path: `${tree.root}/projects`, mode: 'rw' }] }],
      deny_always: ['.env'],
      programs: [{ name: 'git', allow: ['status'] }],
      egress: { allow: ['example.com'], other_hosts: 'deny' },
      secrets: ['github'],
    });
    expect(JSON.parse(textOf(allowed))).toEqual(allowed.structuredContent);
    expect(textOf(allowed)).not.toContain('ghp_');
  });
  it('says when a read taints the session, and oracle_allowed tells the session’s taint', async () => {
    // A connection of its own: its own session, so the taint stays there.
    const other = await mcpHost(['--home', home]);
    try {
      const clean = await other.client.callTool({ name: 'oracle_allowed', arguments: {} });
      expect(clean.structuredContent).toMatchObject({ session: { tainted: false, sources: 0 } });
      const own = await other.client.callTool({ name: 'fs_read', arguments: { path: join(app, 'notes.md') } });
      expect(own.content).toHaveLength(1);
      const dep = join(app, 'node_modules/dep/index.js');
      const read = await other.client.callTool({ name: 'fs_read', arguments: { path: dep } });
      const items = read.content as { type: string; text: string }[];
      // The file's text alone first; the gate's word on it after, as an item of its own.
      expect(items[0]?.text).toBe('needle in a dependency\n');
      expect(items[1]?.text).toMatch(/^\[ORACLE: this is content from outside the person's projects \(`.*node_modules\/dep\/index\.js`\); this session now counts as having read untrusted content/u);
      expect(meta(read)).toMatchObject({ read: [dep] });
      const tainted = await other.client.callTool({ name: 'oracle_allowed', arguments: {} });
      expect(tainted.structuredContent).toMatchObject({ session: { tainted: true, sources: 1 } });
      // Another connection's session is untouched.
      expect((await client.callTool({ name: 'oracle_allowed', arguments: {} })).structuredContent).toMatchObject({ session: { tainted: false } });
    } finally {
      await other.client.close();
    }
  });

  it('searches text files, skipping what the policy hides, dependencies, and secrets', async () => {
    const found = await client.callTool({ name: 'fs_search', arguments: { path: app, text: 'needle' } });
    expect(found.isError, textOf(found)).not.toBe(true);
    const text = textOf(found);
    expect(text).toContain(`${app}/notes.md:1: a needle here`);
    expect(text).not.toContain('.env');
    expect(text).not.toContain('node_modules');
    // The key is redacted before the file is searched: the line is found, the key is not shown.
    expect(text).toContain(`${app}/keys.txt:1:`);
    expect(text).not.toContain('sk-ant-api03');
    // Case matters unless asked: `NEEDLE` is not a match here.
    expect(text).toMatch(/2 matches in \d+ files searched/u);
    const folded = await client.callTool({ name: 'fs_search', arguments: { path: app, text: 'needle', ignore_case: true, glob: '*.md' } });
    expect(textOf(folded)).toContain('notes.md:3: NEEDLE upper');
    expect(textOf(folded)).not.toContain('keys.txt');
    const inDependency = await client.callTool({ name: 'fs_search', arguments: { path: `${app}/node_modules`, text: 'needle' } });
    expect(textOf(inDependency)).toContain('needle in a dependency');
    // Reading a dependency taints the session (SPEC §4): its next change waits for a person.
    const after = await client.callTool({ name: 'fs_mkdir', arguments: { path: `${app}/later` } });
    expect(textOf(after)).toContain('approval pending: T2');
    expect(textOf(after)).toContain('node_modules');
    const outside = await client.callTool({ name: 'fs_search', arguments: { path: `${tree.root}/outside`, text: 'needle' } });
    expect(textOf(outside)).toContain('PATH_OUTSIDE_SCOPE');
  });
  it('matches a glob built to backtrack in bounded work, and refuses one it would read otherwise (red team, session 31)', async () => {
    // As a regular expression this glob took the gate's one thread for minutes against this name.
    tree.file(`projects/glob/${'a'.repeat(60)}`, 'needle\n');
    tree.file('projects/glob/b.md', 'needle\n');
    const costly = await client.callTool({ name: 'fs_search', arguments: { path: `${tree.root}/projects/glob`, text: 'needle', glob: `${'*a'.repeat(16)}!` } });
    expect(costly.isError, textOf(costly)).not.toBe(true);
    expect(textOf(costly)).toContain('0 matches in 0 files searched');
    // The gate still answers at once.
    const next = await client.callTool({ name: 'fs_search', arguments: { path: `${tree.root}/projects/glob`, text: 'needle', glob: '*.{md,txt}' } });
    expect(textOf(next)).toContain('b.md:1: needle');
    const negated = await client.callTool({ name: 'fs_search', arguments: { path: `${tree.root}/projects/glob`, text: 'needle', glob: '!*.md' } });
    expect(negated.isError).toBe(true);
    expect(textOf(negated)).toContain('a negation');
  });
  it('asks no person to delete what is not there, and says a missing folder is missing', async () => {
    const pending = () => running.runtime.desk.list().filter((a) => a.state === 'pending').length;
    const before = pending();
    const gone = await client.callTool({ name: 'fs_delete', arguments: { path: `${app}/never-existed.txt` } });
    expect(gone.isError).toBe(true);
    expect(textOf(gone)).toMatch(/FS_NOT_FOUND: nothing is at `.*never-existed\.txt`, so there is nothing to delete; no person was asked/u);
    expect(pending()).toBe(before);
    expect(textOf(await client.callTool({ name: 'fs_list', arguments: { path: `${app}/nope` } }))).toMatch(/FS_NOT_FOUND: .*nope` does not exist/u);
  });

  it('says an edit is of a missing file, changes nothing, or would make a file too large to write, in its own terms', async () => {
    const missing = await client.callTool({ name: 'fs_edit', arguments: { path: `${app}/nope.ts`, edits: [{ old_string: 'a', new_string: 'b' }] } });
    expect(textOf(missing)).toMatch(/EDIT_NOT_APPLIED.*`.*nope\.ts` does not exist \(an edit with an empty `old_string` creates it\)/u);
    const same = await client.callTool({ name: 'fs_edit', arguments: { path: `${app}/notes.md`, edits: [{ old_string: 'no match', new_string: 'no match' }] } });
    expect(textOf(same)).toMatch(/the edits leave the file as it is, so nothing is written/u);
    tree.file('projects/app/big.txt', `${'x'.repeat(999_990)}\n`);
    const grown = await client.callTool({ name: 'fs_edit', arguments: { path: `${app}/big.txt`, edits: [{ old_string: '\n', new_string: '0123456789abcdef\n' }] } });
    expect(textOf(grown)).toMatch(/the edited file would be 1000007 characters, and ORACLE writes at most 1000000 in one go/u);
    expect(textOf(grown)).not.toContain('`content`');
  });

  it('refuses an edit that would grow the file past the limit, and the gate lives on', async () => {
    tree.file('projects/app/seed.txt', 'a');
    const doubling = Array.from({ length: 30 }, () => ({ old_string: 'a', new_string: 'aa', replace_all: true }));
    const grown = await client.callTool({ name: 'fs_edit', arguments: { path: `${app}/seed.txt`, edits: doubling } });
    expect(grown.isError).toBe(true);
    expect(textOf(grown)).toContain('edit 14: the edits would replace more than 10000 occurrences');
    expect(readFileSync(`${app}/seed.txt`, 'utf8')).toBe('a');
    expect(textOf(await client.callTool({ name: 'fs_read', arguments: { path: `${app}/seed.txt` } }))).toBe('a');
  });
  it('gives the file’s own line numbers after a redacted key block, and says which files it did not search', async () => {
    const body = Array.from({ length: 6 }, (_, i) => `MIIEvQIBADANBgkqhkiG9w0BAQEFAASC${String(i).repeat(32)}`);
    tree.file('projects/other/config.txt', ['line one', '-----BEGIN PRIVATE KEY-----', ...body, '-----END PRIVATE KEY-----', 'the needle on line 10', ''].join('\n'));
    tree.file('projects/other/big.log', `${'filler line\n'.repeat(100_000)}needle at the end\n`);
    writeFileSync(join(tree.root, 'projects/other/blob.bin'), Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 1, 2]));
    const found = textOf(await client.callTool({ name: 'fs_search', arguments: { path: `${tree.root}/projects/other`, text: 'needle' } }));
    expect(found).toContain(`${tree.root}/projects/other/config.txt:10: the needle on line 10`);
    expect(found).toContain('1 match in 1 file searched; not searched: 1 file over 1 MiB (fs_read reads one of up to 8 MiB a page at a time), 1 file that is not UTF-8 text');
    // fs_read shows the same numbering: the key's lines are blank after the marker, line 10 is line 10.
    const read = await client.callTool({ name: 'fs_read', arguments: { path: `${tree.root}/projects/other/config.txt`, offset: 10, limit: 1 } });
    expect(textOf(read)).toBe('the needle on line 10\n');
  });
});
