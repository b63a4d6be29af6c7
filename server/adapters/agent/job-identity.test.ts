import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeIdentity, resolveJobIdentity } from './job-identity.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function passwd(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'oracle-passwd-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'passwd'), text);
  return join(dir, 'passwd');
}

describe('resolveJobIdentity', () => {
  it('a normal user: the sandbox maps its nobody to that user (nothing to create)', () => {
    expect(resolveJobIdentity({ uid: 1000, platform: 'linux' })).toEqual({ kind: 'mapped' });
    expect(resolveJobIdentity({ uid: undefined, platform: 'win32' })).toEqual({ kind: 'mapped' });
  });

  it('root: the account named, never one that is root itself', () => {
    const file = passwd('root:x:0:0:root:/root:/bin/bash\nbuilder:x:1500:1500::/home/builder:/bin/sh\nalias:x:0:100::/:/bin/sh\n');
    const chosen = resolveJobIdentity({ uid: 0, platform: 'linux', chosen: 'builder', passwd: file });
    expect(chosen).toMatchObject({ kind: 'dedicated', name: 'builder', uid: 1500, gid: 1500 });
    expect(describeIdentity(chosen)).toContain('builder (uid 1500, gid 1500)');
    expect(resolveJobIdentity({ uid: 0, platform: 'linux', chosen: 'alias', passwd: file })).toMatchObject({ kind: 'root', reason: expect.stringContaining('not an unprivileged account') as unknown });
    const missing = resolveJobIdentity({ uid: 0, platform: 'linux', chosen: 'nobody-here', passwd: file });
    expect(missing).toMatchObject({ kind: 'root' });
    expect(describeIdentity(missing)).toContain('ROOT');
  });
});
