import { prepareAction, type PreparedAction } from '../../server/toolhost/types.js';
import { fsDelete } from '../../server/toolhost/executors/fs.js';
import { spawnSync } from 'node:child_process';
import { createHash, type Hash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { DIGEST_CONTENT_BYTES, treeDigest } from '../../server/adapters/agent/files.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate } from '../../server/core/decide/decide.js';
import type { Runtime } from '../../server/app/runtime.js';
import { JobRoot } from '../../server/adapters/agent/jobs.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from './runtime-fixture.js';
import { git } from '../fixtures/git.js';
import { testContext } from '../fixtures/context.js';

describe('fs and git through the toolhost', () => {
  let tree: TempTree;
  let runtime: Runtime;
  let app = '';
  let scratch = '';

  beforeAll(async () => {
    tree = tempTree('oracle-fs-');
    app = tree.dir('projects/app');
    scratch = tree.dir('scratch');
    tree.file('outside/secret.txt', 'outside secret');
    git(app, 'init', '-q', '-b', 'main');
    writeFileSync(`${app}/a.txt`, 'one\n');
    git(app, 'add', 'a.txt');
    git(app, 'commit', '-qm', 'init');
    runtime = await runtimeFor(tree, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\n  scratch: { roots: [{ path: "${scratch}", mode: rw }] }\ndeny_always: [".git"]\n`);
  });
  afterAll(async () => {
    await runtime.close();
    tree.dispose();
  });

  it('refuses at execution a path swapped for a symlink after the decision (TOCTOU)', async () => {
    writeFileSync(`${app}/swap.txt`, 'mine');
    const judged = evaluate({ tool: 'fs.write', args: { path: `${app}/swap.txt`, content: 'new' } }, runtime.gate.context);
    expect(judged.decision.decision).toBe('allow');
    rmSync(`${app}/swap.txt`);
    symlinkSync(`${tree.root}/outside/secret.txt`, `${app}/swap.txt`);
    const executed = await runtime.toolhost.boundary.execute(prepareAction('fs.write', judged.args ?? {}, { actionId: 't', paths: judged.paths, decision: judged.decision }));
    expect(executed.result.error?.code).toBe('PATH_CHANGED');
    expect(readFileSync(`${tree.root}/outside/secret.txt`, 'utf8')).toBe('outside secret');
  });

  it('an fs.read reads nothing when the file, or a folder on its way, became a link after the decision (checked on the file it opened)', async () => {
    const read = async (path: string, swap: () => void): Promise<{ code: string | undefined; output: unknown }> => {
      const judged = evaluate({ tool: 'fs.read', args: { path } }, runtime.gate.context);
      expect(judged.decision.decision).toBe('allow');
      swap();
      const executed = await runtime.toolhost.boundary.execute(prepareAction('fs.read', judged.args ?? {}, { actionId: 'r', paths: judged.paths, decision: judged.decision }));
      return { code: executed.result.error?.code, output: executed.result.output };
    };
    writeFileSync(`${app}/plain.txt`, 'mine');
    expect(await read(`${app}/plain.txt`, () => undefined)).toEqual({ code: undefined, output: 'mine' });
    // The file itself: O_NOFOLLOW refuses the link.
    writeFileSync(`${app}/file-swap.txt`, 'mine');
    const file = await read(`${app}/file-swap.txt`, () => {
      rmSync(`${app}/file-swap.txt`);
      symlinkSync(`${tree.root}/outside/secret.txt`, `${app}/file-swap.txt`);
    });
    expect(file.code).toMatch(/^(PATH_CHANGED|FS_NOT_A_FILE)$/u);
    expect(JSON.stringify(file.output ?? null)).not.toContain('outside secret');
    // A folder on the way: the open follows it, and the file it opened is not the decided one.
    mkdirSync(`${app}/dir-swap`, { recursive: true });
    writeFileSync(`${app}/dir-swap/secret.txt`, 'mine');
    const dir = await read(`${app}/dir-swap/secret.txt`, () => {
      rmSync(`${app}/dir-swap`, { recursive: true });
      symlinkSync(`${tree.root}/outside`, `${app}/dir-swap`);
    });
    expect(dir.code).toBe('PATH_CHANGED');
    expect(JSON.stringify(dir.output ?? null)).not.toContain('outside secret');
  });

  it('an edit (fs.replace) lands only on the file it was computed from: changed in between, nothing is written', async () => {
    writeFileSync(`${app}/edit.txt`, 'alpha\n');
    const judged = runtime.judge({ tool: 'fs.replace', args: { path: `${app}/edit.txt`, edits: [{ old_string: 'alpha', new_string: 'beta' }] } });
    expect(judged.tool).toBe('fs.write');
    expect(judged.args).toMatchObject({ content: 'beta\n', expect_before: expect.stringMatching(/^sha256:/u) as unknown });
    // Someone else writes the file between the decision (or the person's approval) and the write.
    writeFileSync(`${app}/edit.txt`, 'alpha, changed\n');
    const executed = await runtime.toolhost.boundary.execute(prepareAction('fs.write', judged.args ?? {}, { actionId: 'e', paths: judged.paths, decision: judged.decision }));
    expect(executed.result.error?.code).toBe('FS_CHANGED');
    expect(readFileSync(`${app}/edit.txt`, 'utf8')).toBe('alpha, changed\n');
    // The same edit computed now applies to what is there.
    const again = await runtime.run({ tool: 'fs.replace', args: { path: `${app}/edit.txt`, edits: [{ old_string: 'alpha', new_string: 'beta' }] } });
    expect(again.executed, JSON.stringify(again)).toBe(true);
    expect(readFileSync(`${app}/edit.txt`, 'utf8')).toBe('beta, changed\n');
  });

  it('writes by exact commit and undoes once; a changed file refuses undo', async () => {
    const first = await runtime.run({ tool: 'fs.write', args: { path: `${app}/a.txt`, content: 'two\n' } });
    expect(first).toMatchObject({ executed: true, tier: 'T1' });
    expect(readFileSync(`${app}/a.txt`, 'utf8')).toBe('two\n');
    expect(readdirSync(app).filter((f) => f.includes('.oracle-'))).toEqual([]);
    const undo = await runtime.undo(first.undo_id ?? '');
    expect(undo.ok).toBe(true);
    expect(readFileSync(`${app}/a.txt`, 'utf8')).toBe('one\n');
    expect((await runtime.undo(first.undo_id ?? '')).error?.code).toBe('UNDO_UNAVAILABLE');

    const second = await runtime.run({ tool: 'fs.write', args: { path: `${app}/new.txt`, content: 'x' } });
    writeFileSync(`${app}/new.txt`, 'edited by a person');
    const refused = await runtime.undo(second.undo_id ?? '');
    expect(refused.error?.message).toContain('changed since the write');
    expect(readFileSync(`${app}/new.txt`, 'utf8')).toBe('edited by a person');
  });

  it('refuses an undo whose kept copy no longer matches its digest, and reads a torn record as absent', async () => {
    writeFileSync(`${app}/kept.txt`, 'original\n');
    const write = await runtime.run({ tool: 'fs.write', args: { path: `${app}/kept.txt`, content: 'changed\n' } });
    const id = write.undo_id ?? '';
    const store = `${runtime.gate.home}/data/undo`;
    writeFileSync(`${store}/${id}.prev`, 'origin');
    const damaged = await runtime.undo(id);
    expect(damaged.error?.message).toContain('is damaged');
    expect(readFileSync(`${app}/kept.txt`, 'utf8')).toBe('changed\n');

    const torn = await runtime.run({ tool: 'fs.write', args: { path: `${app}/kept.txt`, content: 'again\n' } });
    const record = `${store}/${torn.undo_id ?? ''}.json`;
    writeFileSync(record, readFileSync(record, 'utf8').slice(0, 20));
    expect((await runtime.undo(torn.undo_id ?? '')).error?.message).toContain('no undo record');
    expect(readFileSync(`${app}/kept.txt`, 'utf8')).toBe('again\n');
  });

  it('moves a scratch delete to the trash and puts it back on undo', async () => {
    mkdirSync(`${scratch}/dir`);
    writeFileSync(`${scratch}/dir/f.txt`, 'keep me');
    const deleted = await runtime.run({ tool: 'fs.delete', args: { path: `${scratch}/dir` } });
    expect(deleted).toMatchObject({ executed: true, tier: 'T1' });
    expect(existsSync(`${scratch}/dir`)).toBe(false);
    expect((await runtime.undo(deleted.undo_id ?? '')).ok).toBe(true);
    expect(readFileSync(`${scratch}/dir/f.txt`, 'utf8')).toBe('keep me');
  });

  it('deletes and puts back a tree holding a file larger than any buffer, reading no more than a bounded part of it', async () => {
    // Red team, session 33: the delete's digest read every file whole on the gate's thread (55 s
    // held on four sparse 2 GiB files; a 4 GiB one failed "length out of range").
    mkdirSync(`${scratch}/huge`);
    writeFileSync(`${scratch}/huge/small.txt`, 'small');
    const big = `${scratch}/huge/sparse.bin`;
    writeFileSync(big, '');
    truncateSync(big, 5 * 1024 * 1024 * 1024);
    const deleted = await runtime.run({ tool: 'fs.delete', args: { path: `${scratch}/huge` } });
    expect(deleted).toMatchObject({ executed: true, tier: 'T1' });
    expect(deleted.error).toBeUndefined();
    expect(existsSync(`${scratch}/huge`)).toBe(false);
    expect((await runtime.undo(deleted.undo_id ?? '')).ok).toBe(true);
    expect(statSync(big).size).toBe(5 * 1024 * 1024 * 1024);
    expect(readFileSync(`${scratch}/huge/small.txt`, 'utf8')).toBe('small');
    rmSync(`${scratch}/huge`, { recursive: true });
  });

  it('digests within its budget by content and past it by size and modification time', async () => {
    mkdirSync(`${scratch}/dg`);
    const big = `${scratch}/dg/big.bin`;
    writeFileSync(big, '');
    truncateSync(big, DIGEST_CONTENT_BYTES + 1);
    writeFileSync(`${scratch}/dg/a.txt`, 'one');
    const first = await treeDigest(`${scratch}/dg`);
    writeFileSync(`${scratch}/dg/a.txt`, 'two');
    const second = await treeDigest(`${scratch}/dg`);
    expect(second).toMatch(/^sha256:[0-9a-f]{64}$/u);
    expect(second).not.toBe(first);
    utimesSync(big, new Date(0), new Date(0));
    expect(await treeDigest(`${scratch}/dg`)).not.toBe(second);
    rmSync(`${scratch}/dg`, { recursive: true });
  });

  it('digests a tree in the order undo records were always made with, giving way as it goes (session 35)', async () => {
    // Undo records keep digests made before the digest gave way to others: the order (each
    // folder's names sorted, depth first) and the bytes hashed must not change. This is that
    // definition written out on its own.
    for (const name of ['b', 'a', 'B', 'é', 'a b', '10', '9']) {
      tree.file(`scratch/order/${name}/f.txt`, name);
      tree.file(`scratch/order/${name}/in/${name}/g`, `${name}${name}`);
      symlinkSync(`../${name}`, `${scratch}/order/${name}/in/l`);
    }
    const defined = (p: string, rel: string, hash: Hash): void => {
      const stat = lstatSync(p);
      const kind = stat.isSymbolicLink() ? 'link' : stat.isFile() ? 'file' : stat.isDirectory() ? 'dir' : 'other';
      hash.update(`${rel}\0${kind}\0`);
      if (kind === 'file') hash.update(readFileSync(p));
      if (kind === 'link') hash.update(readlinkSync(p));
      if (kind === 'dir') for (const name of readdirSync(p).sort()) defined(`${p}/${name}`, `${rel}/${name}`, hash);
    };
    const hash = createHash('sha256');
    defined(`${scratch}/order`, '.', hash);
    let pauses = 0;
    const counting = {
      breathe: () => {
        pauses += 1;
        return Promise.resolve();
      },
    };
    expect(await treeDigest(`${scratch}/order`, counting)).toBe(`sha256:${hash.digest('hex')}`);
    expect(pauses).toBe(1 + 7 * 6);
    rmSync(`${scratch}/order`, { recursive: true });
  });

  /** fs.delete of `path` as the gate judges it now, run by its executor in `env` (one a test has changed). */
  const deleteWith = (path: string, env: typeof runtime.toolhost.env) => {
    const judged = evaluate({ tool: 'fs.delete', args: { path } }, runtime.gate.context);
    return fsDelete(prepareAction('fs.delete', judged.args ?? {}, { actionId: 'del', paths: judged.paths, decision: judged.decision }) as PreparedAction<'fs.delete'>, env);
  };

  it('puts a deleted folder back, and refuses the delete, when its undo cannot be kept (review, session 35)', async () => {
    mkdirSync(`${scratch}/nokeep`);
    writeFileSync(`${scratch}/nokeep/f.txt`, 'still here');
    const { env } = runtime.toolhost;
    // The undo record cannot be completed once the folder is in the trash (as with a full disk).
    const undo = Object.create(env.undo) as typeof env.undo;
    undo.save = (record, previous) => {
      if (record.kind === 'delete' && record.digest !== 'pending') throw new Error('ENOSPC: no space left on device');
      env.undo.save(record, previous);
    };
    const failing = { ...env, gate: env.gate, undo };
    const result = await deleteWith(`${scratch}/nokeep`, failing);
    expect(result.error?.message).toMatch(/could not be read whole for its undo \(ENOSPC.*so it was not deleted/u);
    expect(readFileSync(`${scratch}/nokeep/f.txt`, 'utf8')).toBe('still here');
    expect(env.undo.list().some((r) => r.kind === 'delete' && r.path === `${scratch}/nokeep`)).toBe(false);
    rmSync(`${scratch}/nokeep`, { recursive: true });
  });

  it('refuses a delete whose folder was walked by a policy no longer in force (a reload meanwhile; review, session 35)', async () => {
    mkdirSync(`${scratch}/reloaded`);
    writeFileSync(`${scratch}/reloaded/secret.txt`, 'keep me');
    const { env } = runtime.toolhost;
    // The policy in force when the walk starts, and the one a reload put in force while it ran.
    const before = env.gate;
    const after = testContext(`scopes:\n  scratch: { roots: [{ path: "${scratch}", mode: rw }] }\ndeny_always: [secret.txt]\n`).gate;
    let reads = 0;
    const reloading = Object.create(env, { gate: { get: () => (reads++ === 0 ? before : after) } }) as typeof env;
    const result = await deleteWith(`${scratch}/reloaded`, reloading);
    expect(result.error).toEqual({ code: 'NOT_ALLOWED', message: 'the policy changed while ORACLE looked through the folder; ask again' });
    expect(readFileSync(`${scratch}/reloaded/secret.txt`, 'utf8')).toBe('keep me');
    rmSync(`${scratch}/reloaded`, { recursive: true });
  });

  it('applies one undo once when it is asked twice at the same time', async () => {
    mkdirSync(`${scratch}/twice`);
    for (let i = 0; i < 50; i++) writeFileSync(`${scratch}/twice/f${String(i)}.txt`, `file ${String(i)}`);
    const deleted = await runtime.run({ tool: 'fs.delete', args: { path: `${scratch}/twice` } });
    expect(deleted).toMatchObject({ executed: true, tier: 'T1' });
    const both = await Promise.all([runtime.undo(deleted.undo_id ?? ''), runtime.undo(deleted.undo_id ?? '')]);
    // Exactly one applies; the other is refused, whether it came while the first was applying or after.
    expect(both.filter((r) => r.ok)).toHaveLength(1);
    expect(both.find((r) => !r.ok)?.error?.message).toMatch(/is being applied now|was already applied/u);
    expect(readFileSync(`${scratch}/twice/f7.txt`, 'utf8')).toBe('file 7');
    rmSync(`${scratch}/twice`, { recursive: true });
  });

  it('commits without running hooks, and undoes by soft reset only while HEAD is unchanged', async () => {
    const marker = `${tree.root}/hook-ran`;
    writeFileSync(`${app}/.git/hooks/pre-commit`, `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    writeFileSync(`${app}/c.txt`, 'c');
    const before = git(app, 'rev-parse', 'HEAD');
    const commit = await runtime.run({ tool: 'git.commit', args: { repo: app, message: '-m looks like an option', paths: ['c.txt'] }, cwd: app });
    expect(commit).toMatchObject({ executed: true, tier: 'T1' });
    expect(existsSync(marker)).toBe(false);
    expect(git(app, 'log', '-1', '--format=%s')).toBe('-m looks like an option');
    expect((await runtime.undo(commit.undo_id ?? '')).ok).toBe(true);
    expect(git(app, 'rev-parse', 'HEAD')).toBe(before);
    expect(git(app, 'diff', '--cached', '--name-only')).toBe('c.txt');

    const again = await runtime.run({ tool: 'git.commit', args: { repo: app, message: 'second', paths: ['c.txt'] }, cwd: app });
    git(app, 'commit', '-q', '--allow-empty', '-m', 'a person moved HEAD');
    const refused = await runtime.undo(again.undo_id ?? '');
    expect(refused.error?.message).toContain('HEAD moved');
  });

  it('neutralises a repository config that runs programs: fsmonitor never runs for exec git', async () => {
    const repo = tree.dir('projects/cfg');
    git(repo, 'init', '-q', '-b', 'main');
    const marker = `${tree.root}/fsmonitor-ran`;
    git(repo, 'config', 'core.fsmonitor', `touch ${marker}`);
    // Control: plain git runs it, so this test would fail if the neutralisation broke.
    git(repo, 'status');
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
    const policyGit = await runtimeFor(tree, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms:\n  git: { subcommands: { allow: [status] } }\n`, { home: 'home-git' });
    try {
      const result = await policyGit.run({ tool: 'exec.run', args: { program: 'git', args: ['status'], cwd: repo } });
      expect(result).toMatchObject({ decision: 'allow', executed: true, exit_code: 0 });
      expect(existsSync(marker)).toBe(false);
      const intent = await policyGit.run({ tool: 'git.status', args: { repo } });
      expect(intent).toMatchObject({ executed: true, exit_code: 0 });
      expect(existsSync(marker)).toBe(false);
      // A signing program the repository names never runs for the gate's commit (red team, session
      // 33). Its marker lies in the repository, which the commit's sandbox can write.
      const signed = `${repo}/signer-ran`;
      const signer = `${repo}/signer.sh`;
      writeFileSync(signer, `#!/bin/sh\ntouch ${signed}\nexit 1\n`, { mode: 0o755 });
      git(repo, 'config', 'commit.gpgSign', 'true');
      git(repo, 'config', 'gpg.program', signer);
      tree.file('projects/cfg/f.txt', 'x');
      expect(spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'control'], { cwd: repo }).status, 'control: plain git runs the signer').not.toBe(0);
      expect(existsSync(signed)).toBe(true);
      rmSync(signed);
      const committed = await policyGit.run({ tool: 'git.commit', args: { repo, message: 'not signed', paths: [`${repo}/f.txt`] } });
      expect(committed).toMatchObject({ executed: true });
      expect(committed.error).toBeUndefined();
      expect(existsSync(signed)).toBe(false);
    } finally {
      await policyGit.close();
    }
  });

  it('blocks the job root when a job directory cannot be removed, and says why', () => {
    const root = JobRoot.open(tree.dir('jobs-block'));
    const job = root.create();
    mkdirSync(`${job.dir}/mnt`);
    const mounted = spawnSync('mount', ['-t', 'tmpfs', 'none', `${job.dir}/mnt`]);
    expect(mounted.status).toBe(0); // root in CI and here: a busy mount point cannot be removed
    try {
      const removed = root.remove(job);
      expect(removed.ok).toBe(false);
      expect(root.blockedReason()).toContain('could not be removed');
      expect(JobRoot.open(root.dir).blockedReason()).toContain('could not be removed');
    } finally {
      spawnSync('umount', [`${job.dir}/mnt`]);
    }
  });

  it('pins its own git from the policy’s programs.git.path: a decoy earlier on PATH never runs', async () => {
    const decoys = tree.dir('decoy-bin');
    const marker = `${tree.root}/decoy-git-ran`;
    // A real executable (node, by absolute path) that records it ran and then fails.
    writeFileSync(`${decoys}/git`, `#!${process.execPath}\nrequire('node:fs').appendFileSync(${JSON.stringify(marker)}, process.argv.slice(2).join(' ') + '\\n');\nprocess.exit(1);\n`, { mode: 0o755 });
    const repo = tree.dir('projects/pinned');
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(`${repo}/p.txt`, 'p');
    const policy = (declared: string) => `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\n${declared}`;
    const path = `${decoys}:/usr/bin:/bin`;
    // Control: without a declared path the decoy wins the PATH lookup (so the test below can fail).
    const unpinned = await runtimeFor(tree, policy(''), { path, home: 'home-unpinned' });
    await unpinned.close();
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
    const pinned = await runtimeFor(tree, policy('programs:\n  git: { path: /usr/bin/git, subcommands: { allow: [status] } }\n'), { path, home: 'home-pinned' });
    try {
      const commit = await pinned.run({ tool: 'git.commit', args: { repo, message: 'pinned', paths: ['p.txt'] }, cwd: repo });
      expect(commit).toMatchObject({ executed: true });
      expect(git(repo, 'log', '-1', '--format=%s')).toBe('pinned');
    } finally {
      await pinned.close();
    }
    expect(existsSync(marker)).toBe(false);
  });
});
