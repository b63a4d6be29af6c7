import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempTree } from '../../../tests/fixtures/temp-tree.js';
import { until } from '../../../tests/fixtures/processes.js';
import { notRootOnLinux } from '../../../tests/fixtures/privileges.js';
import { packageRoot } from '../package-root.js';
import { UndoFiles } from './undo-files.js';

describe('dropping what a keep left', () => {
  const tree = tempTree('oracle-undo-files-');
  afterAll(() => {
    tree.dispose();
  });

  it('removes the copies of a keep whose record was never saved, and nothing of another id', () => {
    const store = UndoFiles.open(tree.dir('undo'));
    const id = store.newId();
    const other = store.newId();
    const kept = store.keptPath(id, 0);
    mkdirSync(dirname(kept), { recursive: true });
    writeFileSync(kept, 'half a copy');
    writeFileSync(store.keptPath(other, 0), 'another keep');
    writeFileSync(`${store.dir}/.hidden`, 'not ours');
    store.drop(id);
    expect(existsSync(kept)).toBe(false);
    store.drop('');
    store.drop('../x');
    expect(readdirSync(store.dir).sort()).toEqual(['.hidden', `${other}.0.keep`].sort());
  });
});

describe('removing a kept folder without holding the gate (session 35)', () => {
  const tree = tempTree('oracle-undo-gone-');
  afterAll(() => {
    tree.dispose();
  });

  it('frees the name at once and removes the folder off the event loop; what a stop left is removed at the next open', async () => {
    const store = UndoFiles.open(tree.dir('undo'));
    const id = store.newId();
    const kept = store.keptPath(id, 0);
    for (let i = 0; i < 200; i++) tree.file(`undo/${id}.0.keep/d/f${String(i)}`, 'x');
    store.drop(id);
    expect(existsSync(kept)).toBe(false);
    const aside = readdirSync(store.dir).filter((name) => /^gone-[0-9a-f]{16}$/u.test(name));
    expect(aside).toHaveLength(1);
    expect(await until(() => readdirSync(store.dir).length === 0, 5000), 'the folder set aside is removed').toBe(true);
    // A gate stopped before that removal ended: the next open removes what it set aside.
    tree.file('undo/gone-0123456789abcdef/f', 'x');
    tree.file('undo/gone-not-ours/f', 'x');
    UndoFiles.open(store.dir);
    expect(await until(() => !existsSync(`${store.dir}/gone-0123456789abcdef`), 5000)).toBe(true);
    expect(existsSync(`${store.dir}/gone-not-ours/f`)).toBe(true);
  });
});

describe.runIf(notRootOnLinux() === undefined && existsSync('/usr/bin/setpriv'))('removing a kept copy with a read-only folder, as its owner (review, session 35)', () => {
  const tree = tempTree('oracle-undo-ro-');
  afterAll(() => {
    tree.dispose();
  });

  it('makes its folders writable to empty them, where a plain removal fails', () => {
    // Run as an ordinary account: root may remove anything, its owner may not empty a 0555 folder.
    const store = tree.dir('undo');
    chownSync(tree.root, 65534, 65534);
    chownSync(store, 65534, 65534);
    const script = `
      const { UndoFiles } = await import(${JSON.stringify(pathToFileURL(join(packageRoot(), 'dist/server/adapters/agent/undo-files.js')).href)});
      const { mkdirSync, writeFileSync, chmodSync, readdirSync } = await import('node:fs');
      const store = UndoFiles.open(${JSON.stringify(store)});
      const id = store.newId();
      const kept = store.keptPath(id, 0);
      mkdirSync(kept + '/locked', { recursive: true });
      writeFileSync(kept + '/locked/f.txt', 'kept');
      chmodSync(kept + '/locked', 0o555);
      store.drop(id);
      for (let i = 0; i < 200 && readdirSync(${JSON.stringify(store)}).length > 0; i++) await new Promise((r) => setTimeout(r, 25));
      process.stdout.write(JSON.stringify(readdirSync(${JSON.stringify(store)})));
    `;
    const run = spawnSync('/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('[]');
  });
});

describe('the size of the copies kept for undo', () => {
  const tree = tempTree('oracle-undo-size-');
  afterAll(() => {
    tree.dispose();
  });

  let clock = Date.parse('2026-12-07T00:00:00Z');
  const write = (store: UndoFiles, bytes: number) => {
    const id = store.newId();
    clock += 1000;
    store.save({ id, kind: 'write', action_id: `ac_${id}`, created_at: new Date(clock).toISOString(), path: '/p/f', previous: { existed: true, mode: 0o644 }, after_digest: 'x' }, Buffer.alloc(bytes, 'a'));
    return id;
  };

  it('removes the oldest copies past its limit, says when, and keeps the newest (red team, session 33: an agent filled the disk through it)', () => {
    const store = UndoFiles.open(tree.dir('undo'), 3000);
    const ids = [write(store, 1000), write(store, 1000), write(store, 1000)];
    expect(ids.map((id) => store.prunedAt(id))).toEqual([undefined, undefined, undefined]);
    ids.push(write(store, 1500));
    // 4,500 bytes: the two oldest go, 2,500 stay.
    expect(ids.map((id) => store.prunedAt(id) !== undefined)).toEqual([true, true, false, false]);
    expect(existsSync(`${store.dir}/${ids[0] ?? ''}.prev`)).toBe(false);
    expect(store.previous(ids[3] ?? '').length).toBe(1500);
    // A store opened again counts what is already there.
    const again = UndoFiles.open(store.dir, 3000);
    ids.push(write(again, 1000));
    expect(ids.map((id) => again.prunedAt(id) !== undefined)).toEqual([true, true, true, false, false]);
  });
});
