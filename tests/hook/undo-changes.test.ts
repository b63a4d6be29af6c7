import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../arch/source-files.js';
import { runOracle } from '../cli/run-oracle.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { cannotMountTmpfs, mountTmpfs, skipping, unmount } from '../fixtures/privileges.js';

/**
 * Undo for what Claude Code's own Bash changes (SPEC §1.6): the gate keeps what every path of an
 * allowed call holds before the agent runs it, the PostToolUse report records what the call
 * left, and `oracle undo` puts it all back — only while nothing moved on, never half. Through the
 * built command and a real bash running the real commands under the shipped default policy.
 */
describe('undo of the file tools Claude Code runs itself', () => {
  let tree: TempTree;
  let app = '';
  let oracleHome = '';
  let policy = '';
  beforeAll(() => {
    tree = tempTree('oracle-undo-changes-');
    const home = tree.dir('home');
    app = tree.dir('home/projects/app');
    oracleHome = tree.dir('oracle-home');
    policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, readFileSync(join(REPO, 'config', 'policy.yaml'), 'utf8').replaceAll('"~/', `"${home}/`));
  });
  afterAll(() => {
    tree.dispose();
  });

  const fresh = (): void => {
    spawnSync('rm', ['-rf', app]);
    tree.file('home/projects/app/README.md', '# app\n');
    tree.file('home/projects/app/a.txt', 'alpha\n');
    tree.file('home/projects/app/c.txt', 'one\n');
    tree.file('home/projects/app/build/out.js', 'built\n');
    tree.file('home/projects/app/build/deep/map.js', 'map\n');
  };
  /** Every path under the project with what it is: the tree an undo must give back. */
  const snapshot = (): Record<string, string> => {
    const out: Record<string, string> = {};
    const walk = (dir: string, rel: string): void => {
      for (const name of readdirSync(dir).sort()) {
        const path = join(dir, name);
        const stat = lstatSync(path);
        const key = `${rel}${name}`;
        if (stat.isSymbolicLink()) out[key] = `link:${readlinkSync(path)}`;
        else if (stat.isDirectory()) {
          out[key] = 'dir';
          walk(path, `${key}/`);
        } else out[key] = readFileSync(path, 'utf8');
      }
    };
    walk(app, '');
    return out;
  };
  const pre = async (command: string, id: string) => {
    const run = await runOracle(['hook', 'claude-code', '--home', oracleHome, '--policy', policy], JSON.stringify({ session_id: 's', cwd: app, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: id }));
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
  };
  const post = async (command: string, id: string) => {
    const run = await runOracle(['hook', 'claude-code', '--home', oracleHome, '--policy', policy], JSON.stringify({ session_id: 's', cwd: app, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command }, tool_response: {}, tool_use_id: id }));
    expect(run.code, run.stderr).toBe(0);
  };
  /**
   * What Claude Code's Bash does once the hook allows: the same programs, real coreutils, in the
   * project (run as argv here: the suite never spawns a shell, tests/arch/no-shell.test.ts).
   */
  const runAll = (argvs: readonly (readonly string[])[]): void => {
    for (const [program = '', ...args] of argvs) {
      if (program === '>') {
        writeFileSync(join(app, args[0] ?? ''), `${args[1] ?? ''}\n`);
        continue;
      }
      const run = spawnSync(program, args, { cwd: app, encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
    }
  };
  const undoId = (reason: string): string => /oracle undo (un_[0-9a-f]{24})/u.exec(reason)?.[1] ?? '';

  const WORK = "mkdir -p src/utils/deep && cp README.md src/utils/r.md && mv a.txt b.txt && rm -rf build && sed -i 's/one/two/' c.txt && ln -s README.md readme.link && touch new.txt && echo hi > out.txt";
  const WORK_ARGV = [
    ['mkdir', '-p', 'src/utils/deep'],
    ['cp', 'README.md', 'src/utils/r.md'],
    ['mv', 'a.txt', 'b.txt'],
    ['rm', '-rf', 'build'],
    ['sed', '-i', 's/one/two/', 'c.txt'],
    ['ln', '-s', 'README.md', 'readme.link'],
    ['touch', 'new.txt'],
    ['>', 'out.txt', 'hi'],
  ];

  it('puts back everything a whole command changed, once it reported done', async () => {
    fresh();
    const before = snapshot();
    const answer = await pre(WORK, 'tu-1');
    expect(answer.permissionDecision, answer.permissionDecisionReason).toBe('allow');
    const id = undoId(answer.permissionDecisionReason);
    expect(id).not.toBe('');
    runAll(WORK_ARGV);
    expect(snapshot()).not.toEqual(before);
    // Not reported done yet: ORACLE cannot tell what it left, so it will not guess.
    const early = await runOracle(['undo', id, '--home', oracleHome, '--policy', policy]);
    expect(early.code).toBe(1);
    expect(early.stdout).toContain('never reported this call as done');
    await post(WORK, 'tu-1');
    const list = await runOracle(['undo', 'list', '--home', oracleHome, '--policy', policy]);
    expect(list.stdout).toContain(id);
    expect(list.stdout).toContain('mkdir -p src/utils/deep');
    const undone = await runOracle(['undo', id, '--home', oracleHome, '--policy', policy]);
    expect(undone.code, undone.stdout).toBe(0);
    expect(snapshot()).toEqual(before);
    // Single use.
    expect((await runOracle(['undo', id, '--home', oracleHome, '--policy', policy])).code).toBe(1);
  });

  it('puts back the files a `git mv` moved (git’s index keeps the rename)', async () => {
    fresh();
    const git = (...args: string[]) => {
      const run = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: app, encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
    };
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'init');
    tree.file('home/projects/app/moved.txt', 'what the destination held\n');
    const files = () => Object.fromEntries(Object.entries(snapshot()).filter(([path]) => path !== '.git' && !path.startsWith('.git/')));
    const before = files();
    const answer = await pre('git mv -k a.txt c.txt build', 'tu-gmv');
    expect(answer.permissionDecision, answer.permissionDecisionReason).toBe('allow');
    const id = undoId(answer.permissionDecisionReason);
    git('mv', '-k', 'a.txt', 'c.txt', 'build');
    expect(files()['build/a.txt']).toBe('alpha\n');
    await post('git mv -k a.txt c.txt build', 'tu-gmv');
    const undone = await runOracle(['undo', id, '--home', oracleHome, '--policy', policy]);
    expect(undone.code, undone.stdout).toBe(0);
    expect(files()).toEqual(before);
    // Overwriting a file is a person's call, like a checkout of one.
    expect((await pre('git mv -f a.txt moved.txt', 'tu-gmv-f')).permissionDecision).toBe('deny');
  });

  it('refuses, touching nothing, when a changed path moved on after the call', async () => {
    fresh();
    const command = "mv a.txt b.txt && sed -i 's/one/two/' c.txt";
    const answer = await pre(command, 'tu-2');
    const id = undoId(answer.permissionDecisionReason);
    runAll([
      ['mv', 'a.txt', 'b.txt'],
      ['sed', '-i', 's/one/two/', 'c.txt'],
    ]);
    await post(command, 'tu-2');
    writeFileSync(join(app, 'c.txt'), 'later work\n');
    const after = snapshot();
    const refused = await runOracle(['undo', id, '--home', oracleHome, '--policy', policy]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('changed since');
    expect(snapshot()).toEqual(after);
  });

  it('keeps nothing for a call that was not allowed', async () => {
    fresh();
    const denied = await pre('mkdir -p src/x && cat .env', 'tu-3');
    expect(denied.permissionDecision).toBe('deny');
    // A delete in the project needs a person; with no gate running nobody can be asked.
    const person = await pre('rm README.md', 'tu-4');
    expect(person.permissionDecision).toBe('deny');
    const list = await runOracle(['undo', 'list', '--home', oracleHome, '--policy', policy]);
    expect(list.stdout).not.toContain('src/x');
    expect(list.stdout).not.toContain('rm README.md');
    expect(existsSync(join(oracleHome, 'data', 'undo'))).toBe(true);
  });

  it('says what it put back and what not when an undo stops partway (a full disk), and loses nothing', async (context) => {
    if (skipping('an undo onto a full disk', cannotMountTmpfs())) return context.skip();
    const disk = tree.dir('home/projects/disk');
    mountTmpfs(disk, '256k');
    try {
      writeFileSync(join(disk, 'a.o'), Buffer.alloc(80 * 1024, 1));
      writeFileSync(join(disk, 'b.o'), Buffer.alloc(80 * 1024, 2));
      const hook = async (event: 'PreToolUse' | 'PostToolUse') => {
        const run = await runOracle(['hook', 'claude-code', '--home', oracleHome, '--policy', policy], JSON.stringify({ session_id: 's', cwd: disk, hook_event_name: event, tool_name: 'Bash', tool_input: { command: 'rm a.o b.o' }, tool_use_id: 'tu-full', ...(event === 'PostToolUse' ? { tool_response: {} } : {}) }));
        expect(run.code, run.stderr).toBe(0);
        return run.stdout;
      };
      const answer = (JSON.parse(await hook('PreToolUse')) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
      expect(answer.permissionDecision, answer.permissionDecisionReason).toBe('allow');
      spawnSync('rm', ['a.o', 'b.o'], { cwd: disk });
      await hook('PostToolUse');
      // (Deleting generated files is T1 and kept for undo in the shipped policy.) The disk fills up meanwhile: room for one of the two files, not both.
      writeFileSync(join(disk, 'filler'), Buffer.alloc(136 * 1024, 0));
      const undone = await runOracle(['undo', undoId(answer.permissionDecisionReason), '--home', oracleHome, '--policy', policy]);
      expect(undone.code).toBe(1);
      expect(undone.stdout).toMatch(/UNDO_PARTIAL/u);
      const back = ['a.o', 'b.o'].filter((name) => existsSync(join(disk, name)));
      expect(back).toHaveLength(1);
      const [restored = ''] = back;
      const missing = restored === 'a.o' ? 'b.o' : 'a.o';
      expect(readFileSync(join(disk, restored))).toEqual(Buffer.alloc(80 * 1024, restored === 'a.o' ? 1 : 2));
      expect(undone.stdout).toContain(`put back: \`${join(disk, restored)}\``);
      expect(undone.stdout).toContain(`not put back: \`${join(disk, missing)}\``);
      // Nothing half-made on the disk, and the copy of the one not put back is whole where the answer says.
      expect(readdirSync(disk).sort()).toEqual([restored, 'filler']);
      const kept = /what it held before is kept in ([^\s";]+)/u.exec(undone.stdout)?.[1] ?? '';
      expect(readFileSync(kept)).toEqual(Buffer.alloc(80 * 1024, missing === 'a.o' ? 1 : 2));
    } finally {
      unmount(disk);
    }
  });
});
