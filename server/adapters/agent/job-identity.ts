import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/**
 * Who a job's processes are on the host (issue 17, seed 000 D-O5 "restricted identity"):
 *
 * - `mapped`: the gate runs as a normal user; bubblewrap's user namespace makes the child the
 *   sandbox's `nobody`, which the host sees as the gate's own uid (it cannot be anyone else
 *   without privileges).
 * - `dedicated`: the gate runs as root; bubblewrap runs without a user namespace and the child
 *   drops to a dedicated unprivileged account (`oracle-job`, created on first start, or the one
 *   `ORACLE_JOB_USER` names) with `setpriv`: no capabilities, no supplementary groups. The host
 *   sees that uid, never root; it can write only where that account may (a root-owned project
 *   is read-only to it).
 * - `root`: the gate runs as root and no dedicated account could be set up: children act as root
 *   on the host, which the start message and the battery say.
 */
export type JobIdentity =
  | { readonly kind: 'mapped' }
  | { readonly kind: 'dedicated'; readonly name: string; readonly uid: number; readonly gid: number; readonly setpriv: string }
  | { readonly kind: 'root'; readonly reason: string };

export const JOB_USER = 'oracle-job';

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'];
const USERADD = ['/usr/sbin/useradd', '/sbin/useradd'];

export interface IdentityHost {
  readonly uid: number | undefined;
  readonly platform: NodeJS.Platform;
  /** `ORACLE_JOB_USER`: an existing account to run jobs as instead of `oracle-job`. */
  readonly chosen?: string | undefined;
  readonly passwd?: string;
}

/** Resolves (and as root, creates once) the identity jobs run as. Never throws. */
export function resolveJobIdentity(host: IdentityHost): JobIdentity {
  if (host.platform !== 'linux' || host.uid !== 0) return { kind: 'mapped' };
  const setpriv = SETPRIV.find((p) => existsSync(p));
  if (setpriv === undefined) return { kind: 'root', reason: 'setpriv (util-linux) is not installed, so a child cannot drop to an unprivileged account' };
  const passwd = host.passwd ?? '/etc/passwd';
  const name = host.chosen ?? JOB_USER;
  let account = findAccount(passwd, name);
  if (account === undefined && host.chosen === undefined) account = createAccount(passwd, name);
  if (account === undefined) {
    return { kind: 'root', reason: host.chosen === undefined ? `no \`${name}\` account exists and none could be created (useradd)` : `ORACLE_JOB_USER names \`${name}\`, which is no account here` };
  }
  if (account.uid === 0 || account.gid === 0) return { kind: 'root', reason: `\`${name}\` is uid ${String(account.uid)}, gid ${String(account.gid)}: not an unprivileged account` };
  return { kind: 'dedicated', name, uid: account.uid, gid: account.gid, setpriv };
}

/** What a start message and the battery say about it. */
export function describeIdentity(identity: JobIdentity): string {
  switch (identity.kind) {
    case 'mapped':
      return "children are the sandbox's nobody, which the host sees as the gate's own uid";
    case 'dedicated':
      return `children run as ${identity.name} (uid ${String(identity.uid)}, gid ${String(identity.gid)}) on the host, without capabilities`;
    case 'root':
      return `children act as ROOT on the host: ${identity.reason}`;
  }
}

function findAccount(passwd: string, name: string): { uid: number; gid: number } | undefined {
  let text: string;
  try {
    text = readFileSync(passwd, 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid !== undefined && gid !== undefined && /^[0-9]+$/u.test(uid) && /^[0-9]+$/u.test(gid)) return { uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

/**
 * A system account with its own group, no home and no login shell. Gates that start together (a
 * test run) race for /etc/passwd's lock: the loser tries again and finds the winner's account.
 */
function createAccount(passwd: string, name: string): { uid: number; gid: number } | undefined {
  const useradd = USERADD.find((p) => existsSync(p));
  if (useradd === undefined) return undefined;
  for (let attempt = 0; attempt < 20; attempt++) {
    spawnSync(useradd, ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', name], { stdio: 'ignore', timeout: 10_000 });
    const made = findAccount(passwd, name);
    if (made !== undefined) return made;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
  return undefined;
}
