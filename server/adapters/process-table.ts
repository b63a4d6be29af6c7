import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { descendants, type ProcessEntry, type ProcessTable } from '../core/agents/process-tree.js';

/**
 * The host's processes as the agent registry needs them (issue 13), read from Linux's /proc. Every
 * function answers `undefined` where /proc is not there (macOS, Windows): HALT then says it could
 * not reach agents' processes instead of claiming it did.
 */
export const PROC_SUPPORTED = process.platform === 'linux';

/** One process's entry, or undefined when it is gone (or /proc cannot be read). */
export function readProcess(pid: number): ProcessEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'latin1');
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so split after the last `)`.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(fields[1]);
    const start = fields[19];
    if (!Number.isSafeInteger(ppid) || start === undefined) return undefined;
    return { pid, ppid, uid: statSync(`/proc/${String(pid)}`).uid, start };
  } catch {
    return undefined;
  }
}

export function readProcessTable(): ProcessTable | undefined {
  if (!PROC_SUPPORTED) return undefined;
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const table = new Map<number, ProcessEntry>();
  for (const name of names) {
    if (!/^[0-9]+$/u.test(name)) continue;
    const entry = readProcess(Number(name));
    if (entry !== undefined) table.set(entry.pid, entry);
  }
  return table;
}

/** A process's argv (NUL-separated in /proc), or undefined when it cannot be read. */
export function argvOf(pid: number): readonly string[] | undefined {
  try {
    const raw = readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8');
    return raw.split('\0').filter((a, i, all) => a !== '' || i < all.length - 1);
  } catch {
    return undefined;
  }
}

/**
 * The socket at the other end of a loopback TCP connection to this gate: the one whose local port
 * is the peer's and whose remote port is ours, from /proc/net/tcp{,6} (one small read). Its inode
 * names the connection for as long as it is open.
 */
export function tcpPeerSocket(peerPort: number, ourPort: number): { readonly inode: string; readonly uid: number } | undefined {
  if (!PROC_SUPPORTED) return undefined;
  const hex = (n: number): string => n.toString(16).toUpperCase().padStart(4, '0');
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'latin1');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/u);
      const [local, remote, uid, inode] = [f[1], f[2], f[7], f[9]];
      if (local?.endsWith(`:${hex(peerPort)}`) === true && remote?.endsWith(`:${hex(ourPort)}`) === true && inode !== undefined && inode !== '0') return { inode, uid: Number(uid) };
    }
  }
  return undefined;
}

/**
 * The process holding a socket, among the processes of the socket's user: every descriptor of
 * theirs is looked at, so callers look up a connection once. The http hook has no process of its
 * own, so this is how the gate learns which Claude Code is calling.
 */
export function socketOwner(socket: { readonly inode: string; readonly uid: number }): number | undefined {
  const target = `socket:[${socket.inode}]`;
  for (const p of readProcessTable()?.values() ?? []) {
    if (p.uid !== socket.uid || p.pid === process.pid) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${String(p.pid)}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${String(p.pid)}/fd/${fd}`) === target) return p.pid;
      } catch {
        // closed while we looked
      }
    }
  }
  return undefined;
}

/** Signals a process only if its pid still names the same process (its start time); true when sent. */
export function signalProcess(p: ProcessEntry, name: 'SIGSTOP' | 'SIGKILL'): boolean {
  if (readProcess(p.pid)?.start !== p.start) return false;
  try {
    process.kill(p.pid, name);
    return true;
  } catch {
    return false; // gone already, or not ours to signal
  }
}

/**
 * Kills a process, its process group and every process below it, however they left the group: a
 * sandbox's inner process calls setsid() (bwrap --new-session), a shell puts each job in its own
 * group. The root is stopped first, so it forks nothing while its tree is read (a child being
 * cloned at that moment is in the table once the stop lands), then the tree is stopped and killed.
 * Without it a job cancelled within its first milliseconds left its sandbox running: the outer
 * bwrap died before the inner one had set its parent-death signal.
 */
export function killTree(pid: number): void {
  killTrees([pid]);
}

/** killTree for many roots at once, with one read of the process table. */
/**
 * The working folder of a git process (its comm is `git`), read while it is stopped: HALT kills
 * git with SIGKILL, which leaves its lock files (`.git/index.lock`) for every later git to trip
 * on, so where it ran is kept (fault probe, session 37). Undefined for any other process.
 */
export function gitWorkDir(pid: number): string | undefined {
  try {
    if (readFileSync(`/proc/${String(pid)}/comm`, 'latin1').trim() !== 'git') return undefined;
    return readlinkSync(`/proc/${String(pid)}/cwd`);
  } catch {
    return undefined;
  }
}

/** Stops and kills each tree; returns the working folders of the git processes among them. */
export function killTrees(pids: readonly number[]): string[] {
  if (pids.length === 0) return [];
  const send = (target: number, name: 'SIGSTOP' | 'SIGKILL'): void => {
    try {
      process.kill(target, name);
    } catch {
      // ESRCH: gone already
    }
  };
  for (const pid of pids) send(pid, 'SIGSTOP');
  const table = readProcessTable();
  const trees = table === undefined ? [] : pids.flatMap((pid) => descendants(table, pid));
  // Verified once, when stopped: from then on every parent in the tree is stopped too, so none of
  // these pids can be reaped and reused before the kill lands.
  const stopped = trees.filter((p) => signalProcess(p, 'SIGSTOP'));
  const gitDirs = [...pids, ...stopped.map((p) => p.pid)].flatMap((pid) => gitWorkDir(pid) ?? []);
  for (const p of stopped) send(p.pid, 'SIGKILL');
  for (const pid of pids) {
    send(-pid, 'SIGKILL');
    send(pid, 'SIGKILL');
  }
  return [...new Set(gitDirs)];
}
