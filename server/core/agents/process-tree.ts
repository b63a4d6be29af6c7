/**
 * Which processes an agent started for its tool calls (SPEC §8 (2), issue 13): the agent is the
 * process an ORACLE client serves (Claude Code behind its hook, an MCP host behind `oracle mcp`);
 * what it starts after it first reached the gate is what HALT stops. Pure: the process table comes
 * from the host's adapter.
 *
 * A process is identified by its pid *and* its start time, so a pid the kernel reused is never
 * mistaken for the process that was registered.
 */
export interface ProcessEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly uid: number;
  /** The kernel's start time of the process (clock ticks since boot on Linux), as text. */
  readonly start: string;
}

export type ProcessTable = ReadonlyMap<number, ProcessEntry>;

export const processKey = (p: ProcessEntry): string => `${String(p.pid)}@${p.start}`;

/** Every process below `root`, parents before their children. */
export function descendants(table: ProcessTable, root: number): ProcessEntry[] {
  const children = new Map<number, ProcessEntry[]>();
  for (const p of table.values()) {
    if (p.pid === p.ppid) continue;
    const list = children.get(p.ppid);
    if (list === undefined) children.set(p.ppid, [p]);
    else list.push(p);
  }
  const out: ProcessEntry[] = [];
  const queue = [...(children.get(root) ?? [])];
  const seen = new Set<number>([root]);
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (seen.has(next.pid)) continue;
    seen.add(next.pid);
    out.push(next);
    queue.push(...(children.get(next.pid) ?? []));
  }
  return out;
}

export interface RegisteredAgent {
  readonly agent: ProcessEntry;
  /** Keys of the agent's descendants when it first reached the gate: not started for a tool call. */
  readonly before: ReadonlySet<string>;
}

/**
 * What HALT kills below one agent: every process it started after it registered, with that
 * process's whole tree, except the trees of what it had already started (its MCP servers, say) and
 * of `spared` (the ORACLE clients still waiting for an answer, which HALT answers instead). Only
 * processes of the agent's own user: a registration can never make the gate kill another user's
 * process. Empty when the agent itself is gone or its pid now names another process.
 */
export function toolTrees(table: ProcessTable, registered: RegisteredAgent, spared: ReadonlySet<number>): ProcessEntry[] {
  const now = table.get(registered.agent.pid);
  if (now === undefined || processKey(now) !== processKey(registered.agent)) return [];
  // A waiting client and the launchers between it and the agent.
  const sparedChain = new Set<number>();
  for (const pid of spared) {
    for (let p = table.get(pid); p !== undefined && p.pid !== now.pid && !sparedChain.has(p.pid); p = table.get(p.ppid)) sparedChain.add(p.pid);
  }
  const kept = new Set<number>();
  const out: ProcessEntry[] = [];
  // Parents come before their children, so a kept parent has already marked its subtree kept. A
  // waiting client and its launchers are spared themselves, not what else those launchers started:
  // a tool command that also runs a client (`sleep 1001 & oracle hook …`) kept its sleep out of
  // HALT (red team, session 33).
  for (const p of descendants(table, now.pid)) {
    if (kept.has(p.ppid) || registered.before.has(processKey(p))) kept.add(p.pid);
    else if (sparedChain.has(p.pid)) continue;
    else if (p.uid === now.uid) out.push(p);
  }
  return out;
}

/** How a client process is launched, as far as finding the agent above it needs (argv of each). */
export type ArgvOf = (pid: number) => readonly string[] | undefined;

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ash', 'ksh', 'busybox']);
const NPM = new Set(['npm', 'npx', 'npm-cli.js', 'npx-cli.js', 'pnpm', 'yarn']);
const base = (path: string): string => path.slice(path.lastIndexOf('/') + 1);
/**
 * A command line that runs an ORACLE client: `oracle hook …` or `oracle mcp …`, by the command,
 * its `oracle.js`, or the hook's own bundle `oracle-hook.cjs`, each perhaps single- or
 * double-quoted, as `oracle integrate` writes the command hook (`'/usr/bin/node'
 * '…/dist/hook/oracle-hook.cjs' hook claude-code --home '…'`). Missing that form made the
 * short-lived `sh -c` the agent, and HALT reached nothing Claude Code ran (red team, session 33).
 */
const RUNS_CLIENT = /(?:^|[\s/'"])oracle(?:\.js|-hook\.cjs)?['"]?\s+(?:hook|mcp)(?:\s|$)/u;

/**
 * Whether a process's command line is an ORACLE client (`oracle mcp`, `oracle hook`, the hook's
 * bundle): the only process whose claim "I am pid N" the gate takes. Any other pid a request names
 * is not registered (red team, session 33: an agent's credential named the person's shell, whose
 * next build HALT then killed, and could hold any process out of HALT as "waiting").
 */
export function isOracleClient(argv: readonly string[]): boolean {
  return RUNS_CLIENT.test(argv.join(' '));
}

/**
 * A launcher between the agent and the ORACLE client: a shell run with `-c` for a line that runs
 * ORACLE (Claude Code runs command hooks through `/bin/sh -c`), or npm/npx running it. Only such
 * a process is skipped; anything else above the client is the agent.
 */
export function isLauncher(argv: readonly string[]): boolean {
  const [first, ...rest] = argv;
  if (first === undefined) return false;
  // `-c` alone or among other single-letter options (`bash -lc`, `sh -ec`).
  if (SHELLS.has(base(first))) return rest.some((a) => /^-[A-Za-z]*c[A-Za-z]*$/u.test(a)) && rest.some((a) => RUNS_CLIENT.test(a));
  const names = [base(first), ...rest.slice(0, 2).map(base)];
  return names.some((n) => NPM.has(n)) && RUNS_CLIENT.test(rest.join(' '));
}

/** The agent a client process serves: the first process above it that is not a launcher. */
export function agentAbove(table: ProcessTable, clientPid: number, argvOf: ArgvOf): ProcessEntry | undefined {
  let at = table.get(clientPid);
  for (let hops = 0; at !== undefined && hops < 8; hops++) {
    const parent = table.get(at.ppid);
    if (parent === undefined || parent.pid <= 1) return undefined;
    const argv = argvOf(parent.pid);
    if (argv === undefined) return undefined;
    if (!isLauncher(argv)) return parent;
    at = parent;
  }
  return undefined;
}
