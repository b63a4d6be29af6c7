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
}

/** The unprivileged identity inside the sandbox: `nobody`. */
export const SANDBOX_UID = 65534;

export function sandboxArgv(input: SandboxPlanInput): { file: string; argv: string[] } {
  const argv: string[] = ['--unshare-all', ...(input.network ? ['--share-net'] : []), '--die-with-parent', ...(input.newSession === false ? [] : ['--new-session'])];
  argv.push('--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID));
  for (const entry of input.system) {
    if (entry.kind === 'symlink' && entry.target !== undefined) argv.push('--symlink', entry.target, entry.path);
    else argv.push('--ro-bind', entry.path, entry.path);
  }
  argv.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  for (const bind of input.binds) argv.push(bind.mode === 'rw' ? '--bind' : '--ro-bind', bind.path, bind.path);
  for (const path of input.readOnly ?? []) argv.push('--ro-bind', path, path);
  for (const mask of input.masks ?? []) argv.push(...(mask.kind === 'dir' ? ['--tmpfs', mask.path] : ['--ro-bind', '/dev/null', mask.path]));
  argv.push('--bind', input.jobDir, input.jobDir, '--chdir', input.cwd, '--', input.program, ...input.args);
  return { file: input.bwrap, argv };
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
