/**
 * The bubblewrap command line for one job (SPEC §6, seed 000): a fresh user, PID, IPC, UTS and
 * network namespace; the job directory read-write; the scoped roots the job needs, each with its
 * own mode; the system directories read-only; nothing else of the host's file system. The network
 * namespace is shared only when the tool was granted net.egress. Pure: the host's layout is input.
 */
export interface SystemEntry {
  readonly path: string;
  /** A directory is bound read-only; a symlink (merged /usr: /bin → usr/bin) is recreated. */
  readonly kind: 'dir' | 'file' | 'symlink';
  readonly target?: string;
}

export interface SandboxPlanInput {
  readonly bwrap: string;
  readonly program: string;
  readonly args: readonly string[];
  readonly jobDir: string;
  readonly cwd: string;
  readonly binds: readonly { readonly path: string; readonly mode: 'ro' | 'rw' }[];
  readonly system: readonly SystemEntry[];
  readonly network: boolean;
  /** Read-only roots nested inside a read-write bind: bound again, read-only. */
  readonly readOnly?: readonly string[];
  /** What must stay invisible inside the binds: an empty tmpfs over a dir, /dev/null over a file. */
  readonly masks?: readonly { readonly path: string; readonly kind: 'dir' | 'file' }[];
  /** false keeps the caller's session (a terminal's PTY as controlling terminal); default: a new one. */
  readonly newSession?: boolean;
  /**
   * bubblewrap reports on fd 3 (`--json-status-fd`): `exit-code` only once the program ran, so a
   * run without it is a sandbox that could not be set up (a bind's source gone, a mask in the way).
   */
  readonly statusFd?: boolean;
  /**
   * The gate runs as root: no user namespace (whose only mapping would be root), and the child
   * drops to this unprivileged account with `setpriv` before the program starts
   * (adapters/agent/job-identity.ts). Absent: the sandbox's `nobody` in a user namespace.
   */
  readonly dropTo?: { readonly uid: number; readonly gid: number; readonly setpriv: string };
}

/** The descriptor bubblewrap reports its status on, when asked (the spawner's fourth pipe). */
export const STATUS_FD = 3;

/** Whether bubblewrap's status report says the program ran: it writes an exit code only then. */
export function programRan(status: string): boolean {
  return status.includes('"exit-code"');
}

/** The unprivileged identity inside the sandbox: `nobody`. */
export const SANDBOX_UID = 65534;

export function sandboxArgv(input: SandboxPlanInput): { file: string; argv: string[] } {
  const { dropTo } = input;
  const namespaces = dropTo === undefined ? ['--unshare-all', ...(input.network ? ['--share-net'] : [])] : ['--unshare-ipc', '--unshare-pid', '--unshare-uts', '--unshare-cgroup-try', ...(input.network ? [] : ['--unshare-net'])];
  const argv: string[] = [...(input.statusFd === true ? ['--json-status-fd', String(STATUS_FD)] : []), ...namespaces, '--die-with-parent', ...(input.newSession === false ? [] : ['--new-session'])];
  if (dropTo === undefined) argv.push('--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID));
  // Without a user namespace bubblewrap (as root) makes the folders leading to a mount 0700 and
  // root's: /etc above /etc/ssl, a project's parents, the job root. The unprivileged child could
  // not reach what it is given; they are made 0755 first (what the child may do in a bind is
  // still what the host's own modes allow that account).
  if (dropTo !== undefined) for (const dir of leadingDirs(input.system.map((e) => e.path), input.system)) argv.push('--perms', '0755', '--dir', dir);
  for (const entry of input.system) {
    if (entry.kind === 'symlink' && entry.target !== undefined) argv.push('--symlink', entry.target, entry.path);
    else argv.push('--ro-bind', entry.path, entry.path);
  }
  argv.push('--proc', '/proc', '--dev', '/dev', ...(dropTo === undefined ? [] : ['--perms', '1777']), '--tmpfs', '/tmp');
  const binds = [...input.binds.map((b) => b.path), ...(input.readOnly ?? []), input.jobDir];
  if (dropTo !== undefined) for (const dir of leadingDirs(binds, input.system)) argv.push('--perms', '0755', '--dir', dir);
  for (const bind of input.binds) argv.push(bind.mode === 'rw' ? '--bind' : '--ro-bind', bind.path, bind.path);
  for (const path of input.readOnly ?? []) argv.push('--ro-bind', path, path);
  for (const mask of input.masks ?? []) argv.push(...(mask.kind === 'dir' ? ['--tmpfs', mask.path] : ['--ro-bind', '/dev/null', mask.path]));
  argv.push('--bind', input.jobDir, input.jobDir, '--chdir', input.cwd, '--');
  if (dropTo !== undefined) argv.push(dropTo.setpriv, `--reuid=${String(dropTo.uid)}`, `--regid=${String(dropTo.gid)}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--');
  argv.push(input.program, ...input.args);
  return { file: input.bwrap, argv };
}

/** Every folder above these mounts that is not itself a system mount or inside one, shallowest first. */
export function leadingDirs(mounts: readonly string[], system: readonly SystemEntry[]): string[] {
  const out = new Set<string>();
  // /tmp is a fresh tmpfs of the sandbox's own (1777): folders inside it are made like any other.
  const mounted = (dir: string): boolean => dir === '/tmp' || ['/proc', '/dev', ...system.map((e) => e.path)].some((m) => dir === m || dir.startsWith(`${m}/`));
  for (const mount of mounts) {
    const parts = mount.split('/').filter((p) => p !== '');
    for (let i = 1; i < parts.length; i++) {
      const dir = `/${parts.slice(0, i).join('/')}`;
      if (!mounted(dir)) out.add(dir);
    }
  }
  return [...out].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

/** What a child may see of the system: executables, libraries and the few files they read. */
export const SYSTEM_PATHS = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/localtime',
  '/etc/nsswitch.conf',
  '/etc/passwd',
  '/etc/group',
  '/etc/hosts',
  '/etc/resolv.conf',
  '/etc/gitconfig',
  '/opt',
] as const;
