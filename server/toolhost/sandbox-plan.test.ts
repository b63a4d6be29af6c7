import { describe, expect, it } from 'vitest';
import { leadingDirs, sandboxArgv, SANDBOX_UID, type SystemEntry } from './sandbox-plan.js';

const system: SystemEntry[] = [
  { path: '/usr', kind: 'dir' },
  { path: '/bin', kind: 'symlink', target: 'usr/bin' },
  { path: '/etc/ssl', kind: 'dir' },
  { path: '/etc/passwd', kind: 'file' },
];
const base = { bwrap: '/usr/bin/bwrap', program: '/usr/bin/sh', args: ['-c', 'id'], jobDir: '/home/dev/.oracle/data/jobs/ab', cwd: '/home/dev/p', binds: [{ path: '/home/dev/p', mode: 'rw' as const }], system, network: false };

describe('sandboxArgv', () => {
  it('as a normal user: a user namespace whose nobody runs the program', () => {
    const { argv } = sandboxArgv(base);
    expect(argv.slice(0, 2)).toEqual(['--unshare-all', '--die-with-parent']);
    expect(argv.join(' ')).toContain(`--uid ${String(SANDBOX_UID)} --gid ${String(SANDBOX_UID)}`);
    expect(argv).not.toContain('--share-net');
    expect(argv.slice(argv.indexOf('--') + 1)).toEqual(['/usr/bin/sh', '-c', 'id']);
    expect(sandboxArgv({ ...base, network: true }).argv).toContain('--share-net');
    // Asked for, bubblewrap reports on fd 3, before anything else is set up.
    expect(sandboxArgv({ ...base, statusFd: true }).argv.slice(0, 3)).toEqual(['--json-status-fd', '3', '--unshare-all']);
  });

  it('as root with a dedicated account: no user namespace, setpriv drops to it, the folders on the way are 0755', () => {
    const { argv } = sandboxArgv({ ...base, dropTo: { uid: 999, gid: 995, setpriv: '/usr/bin/setpriv' } });
    expect(argv).not.toContain('--unshare-all');
    expect(argv).not.toContain('--uid');
    expect(argv).toEqual(expect.arrayContaining(['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net']));
    const tail = argv.slice(argv.indexOf('--') + 1);
    expect(tail).toEqual(['/usr/bin/setpriv', '--reuid=999', '--regid=995', '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--', '/usr/bin/sh', '-c', 'id']);
    const text = argv.join(' ');
    // /etc before /etc/ssl is bound; /home and the job root's parents before the binds; /tmp world-writable.
    expect(text.indexOf('--perms 0755 --dir /etc')).toBeGreaterThanOrEqual(0);
    expect(text.indexOf('--perms 0755 --dir /etc')).toBeLessThan(text.indexOf('--ro-bind /etc/ssl'));
    for (const dir of ['/home', '/home/dev', '/home/dev/.oracle', '/home/dev/.oracle/data', '/home/dev/.oracle/data/jobs']) {
      expect(text).toContain(`--perms 0755 --dir ${dir} `);
      expect(text.indexOf(`--dir ${dir} `)).toBeLessThan(text.indexOf('--bind /home/dev/p'));
    }
    expect(text).toContain('--perms 1777 --tmpfs /tmp');
    // A network-capable job keeps the host's network namespace (the egress proxy narrows it).
    expect(sandboxArgv({ ...base, network: true, dropTo: { uid: 999, gid: 995, setpriv: '/usr/bin/setpriv' } }).argv).not.toContain('--unshare-net');
  });

  it('leadingDirs: every folder above a mount, never a system mount or inside one, shallowest first', () => {
    expect(leadingDirs(['/tmp/a/b/c', '/etc/ssl', '/usr/lib/x', '/home/dev/p'], system)).toEqual(['/etc', '/home', '/home/dev', '/tmp/a', '/tmp/a/b']);
  });
});
