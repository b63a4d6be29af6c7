import { readFileSync, writeFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { REPO } from '../arch/source-files.js';
import { runOracle } from '../cli/run-oracle.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * A file an agent session made itself, and nobody changed since, is its own to delete again
 * (toolhost/made-files.ts): Claude Code writing a scratch script and removing it asks nobody,
 * under the shipped default policy, through the built hook and a running gate. Anything else in
 * a project (a file that was there, one a person or another session touched, one a move brought
 * in) still waits for a person; with nobody watching the screens, that is an immediate refusal.
 */
describe('deleting what the session made', () => {
  let tree: TempTree;
  let app = '';
  let oracleHome = '';
  let policy = '';
  let running: Running | undefined;
  beforeAll(async () => {
    tree = tempTree('oracle-made-files-');
    const home = tree.dir('home');
    app = tree.dir('home/projects/app');
    tree.file('home/projects/app/a.txt', 'the person’s file\n');
    oracleHome = tree.dir('oracle-home');
    policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, readFileSync(join(REPO, 'config', 'policy.yaml'), 'utf8').replaceAll('"~/', `"${home}/`));
    // As a person sets it up: the project wired to ORACLE (its hook credential), then the gate.
    const wired = await runOracle(['integrate', 'claude-code', '--project', app, '--home', oracleHome, '--policy', policy]);
    expect(wired.code, wired.stderr).toBe(0);
    running = await startServer({ home: oracleHome, policy, port: 0 });
  });
  afterAll(async () => {
    await running?.close();
    tree.dispose();
  });

  let calls = 0;
  const hook = async (session: string, event: 'PreToolUse' | 'PostToolUse', tool: string, input: Record<string, unknown>, id: string) => {
    const run = await runOracle(['hook', 'claude-code', '--home', oracleHome, '--policy', policy], JSON.stringify({ session_id: session, cwd: app, hook_event_name: event, tool_name: tool, tool_input: input, tool_use_id: id, ...(event === 'PostToolUse' ? { tool_response: {} } : {}) }));
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { hookSpecificOutput?: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
  };
  /** One whole call as Claude Code makes it: asked, run by `act` when allowed, reported done. */
  const call = async (session: string, tool: string, input: Record<string, unknown>, act: () => void) => {
    calls += 1;
    const id = `tu-${String(calls)}`;
    const answer = await hook(session, 'PreToolUse', tool, input, id);
    if (answer?.permissionDecision === 'allow') {
      act();
      await hook(session, 'PostToolUse', tool, input, id);
    }
    return answer ?? { permissionDecision: '', permissionDecisionReason: '' };
  };
  const write = (session: string, name: string, content: string) => call(session, 'Write', { file_path: join(app, name), content }, () => { writeFileSync(join(app, name), content); });
  const rm = (session: string, name: string) => call(session, 'Bash', { command: `rm ${name}` }, () => { rmSync(join(app, name)); });

  it('runs the delete of a file the session wrote, unasked and undoable; not another session’s, nor one changed since', async () => {
    expect((await write('s1', 'scratch.py', 'print(1)\n')).permissionDecision).toBe('allow');
    // Another session did not make it: a project delete, which nobody is watching to approve.
    const other = await rm('s2', 'scratch.py');
    expect(other.permissionDecision).toBe('deny');
    expect(other.permissionDecisionReason).toContain('a person confirms deleting');
    expect(existsSync(join(app, 'scratch.py'))).toBe(true);
    const own = await rm('s1', 'scratch.py');
    expect(own.permissionDecision, own.permissionDecisionReason).toBe('allow');
    expect(own.permissionDecisionReason).toContain('a file this session made');
    const undo = /oracle undo (un_[0-9a-f]{24})/u.exec(own.permissionDecisionReason)?.[1] ?? '';
    expect(existsSync(join(app, 'scratch.py'))).toBe(false);
    const undone = await runOracle(['undo', undo, '--home', oracleHome, '--policy', policy]);
    expect(undone.code, undone.stdout).toBe(0);
    expect(readFileSync(join(app, 'scratch.py'), 'utf8')).toBe('print(1)\n');

    // Rewritten by the session itself (an Edit is a whole-file write here): still its own.
    expect((await write('s1', 'notes.md', 'one\n')).permissionDecision).toBe('allow');
    expect((await call('s1', 'Edit', { file_path: join(app, 'notes.md'), old_string: 'one', new_string: 'two' }, () => { writeFileSync(join(app, 'notes.md'), 'two\n'); })).permissionDecision).toBe('allow');
    expect((await rm('s1', 'notes.md')).permissionDecision).toBe('allow');

    // A person changed it since: their work now, so a person decides.
    expect((await write('s1', 'draft.md', 'draft\n')).permissionDecision).toBe('allow');
    writeFileSync(join(app, 'draft.md'), 'draft, with the person’s own line\n');
    expect((await rm('s1', 'draft.md')).permissionDecision).toBe('deny');
  });

  it('counts what a Bash redirection or a copy made, never what a move brought in, nor a file that was there', async () => {
    expect((await call('s3', 'Bash', { command: 'echo hi > out.txt' }, () => { writeFileSync(join(app, 'out.txt'), 'hi\n'); })).permissionDecision).toBe('allow');
    expect((await rm('s3', 'out.txt')).permissionDecision).toBe('allow');
    expect((await call('s3', 'Bash', { command: 'cp a.txt copy.txt' }, () => { writeFileSync(join(app, 'copy.txt'), readFileSync(join(app, 'a.txt'))); })).permissionDecision).toBe('allow');
    expect((await rm('s3', 'copy.txt')).permissionDecision).toBe('allow');
    expect(readFileSync(join(app, 'a.txt'), 'utf8')).toBe('the person’s file\n');
    // A move (T1, undoable) then a delete would throw the person's file away with nobody asked.
    expect((await call('s3', 'Bash', { command: 'mv a.txt moved.txt' }, () => { renameSync(join(app, 'a.txt'), join(app, 'moved.txt')); })).permissionDecision).toBe('allow');
    const moved = await rm('s3', 'moved.txt');
    expect(moved.permissionDecision).toBe('deny');
    expect(existsSync(join(app, 'moved.txt'))).toBe(true);
    // Nor in one call: a later part may move the person's file where an earlier part made one (review, session 37).
    writeFileSync(join(app, 'thesis.md'), 'the person’s thesis\n');
    expect((await call('s3', 'Bash', { command: "printf '' > t.tmp; mv thesis.md t.tmp" }, () => { renameSync(join(app, 'thesis.md'), join(app, 't.tmp')); })).permissionDecision).toBe('allow');
    expect((await rm('s3', 't.tmp')).permissionDecision).toBe('deny');
    // Nor a move in a later call onto a file the session made, even of the very same bytes.
    expect((await write('s3', 'mine.txt', 'same\n')).permissionDecision).toBe('allow');
    writeFileSync(join(app, 'theirs.txt'), 'same\n');
    expect((await call('s3', 'Bash', { command: 'mv -f theirs.txt mine.txt' }, () => { renameSync(join(app, 'theirs.txt'), join(app, 'mine.txt')); })).permissionDecision).toBe('allow');
    expect((await rm('s3', 'mine.txt')).permissionDecision).toBe('deny');
    // A person's edit is not the session's again after the session merely touches the file.
    expect((await write('s3', 'notes2.md', 'agent\n')).permissionDecision).toBe('allow');
    writeFileSync(join(app, 'notes2.md'), 'the person rewrote this\n');
    expect((await call('s3', 'Bash', { command: 'touch notes2.md' }, () => undefined)).permissionDecision).toBe('allow');
    expect((await rm('s3', 'notes2.md')).permissionDecision).toBe('deny');
    // A write over a file that was there does not make it the session's either.
    expect((await write('s3', 'moved.txt', 'replaced\n')).permissionDecision).toBe('allow');
    expect((await rm('s3', 'moved.txt')).permissionDecision).toBe('deny');
  });

  it('lets an MCP session delete what ORACLE wrote for it (to the trash), and only that', async () => {
    const runtime = running?.runtime;
    if (runtime === undefined) throw new Error('no gate');
    const path = join(app, 'mcp-scratch.txt');
    expect(await runtime.submit({ tool: 'fs.write', args: { path, content: 'from the agent\n' }, session: 'm1' }, 0, 'mcp')).toMatchObject({ executed: true });
    expect(await runtime.submit({ tool: 'fs.delete', args: { path }, session: 'm2' }, 0, 'mcp')).toMatchObject({ executed: false, tier: 'T2' });
    const deleted = await runtime.submit({ tool: 'fs.delete', args: { path }, session: 'm1' }, 0, 'mcp');
    expect(deleted).toMatchObject({ executed: true, tier: 'T1' });
    expect(existsSync(path)).toBe(false);
    // Over a file that was there, a write does not make it the session's.
    const there = join(app, 'a.txt');
    writeFileSync(there, 'the person’s again\n');
    expect(await runtime.submit({ tool: 'fs.write', args: { path: there, content: 'the agent’s\n' }, session: 'm1' }, 0, 'mcp')).toMatchObject({ executed: true });
    expect(await runtime.submit({ tool: 'fs.delete', args: { path: there }, session: 'm1' }, 0, 'mcp')).toMatchObject({ executed: false, tier: 'T2' });
  });

  it('asks again after the gate restarts: what a session made is known in memory only', async () => {
    expect((await write('s4', 'tmp.txt', 'x\n')).permissionDecision).toBe('allow');
    await running?.close();
    running = await startServer({ home: oracleHome, policy, port: 0 });
    expect((await rm('s4', 'tmp.txt')).permissionDecision).toBe('deny');
  });
});
