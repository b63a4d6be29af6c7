import { agentAbove, descendants, isOracleClient, processKey, toolTrees, type ProcessEntry, type RegisteredAgent } from '../core/agents/process-tree.js';
import { argvOf, gitWorkDir, PROC_SUPPORTED, readProcess, readProcessTable, signalProcess, socketOwner, tcpPeerSocket } from './process-table.js';

/**
 * The agents this gate serves, by process (SPEC §8 (2), issue 13): every hook call and every
 * `oracle mcp` session registers the agent process above it, and HALT kills what those agents
 * started for their tool calls (Claude Code's Bash commands are its own children, which the gate's
 * supervisor never sees). The agent itself is left running, so the person sees what happened and
 * every later call from it is refused while the gate is halted.
 *
 * What counts as "started for a tool call": everything the agent started after it first reached the
 * gate. What it had already started (an MCP host's servers) is left alone. Limits, stated where HALT
 * reports them: a process that left the agent's tree (daemonised, `setsid` and reparented) is not
 * found, and a host without /proc (macOS, Windows) registers nothing.
 */
export interface HaltReach {
  readonly supported: boolean;
  readonly agents: number;
  readonly killed: number;
  /** Where git ran among the processes killed (their lock files may be left behind). */
  readonly gitDirs?: readonly string[];
}

/** A client locates the agent it serves: by its own pid, or by the TCP connection it calls from. */
export type ClientLocator = { readonly pid: number } | { readonly peerPort: number; readonly ourPort: number; readonly connection?: object };

interface Placed {
  readonly key: string | undefined;
  readonly at: number;
}

/** How many stop rounds HALT runs: each catches what the previous round's processes had just forked. */
const STOP_ROUNDS = 5;
const MAX_AGENTS = 256;
const RECHECK_MS = 1000;
/** How long a connection's lookup is kept (the gate keeps an idle connection 60 s). */
const CONNECTION_MS = 60_000;
const MAX_CONNECTIONS = 1024;
const MAX_SESSIONS = 4096;

export class AgentProcesses {
  private readonly agents = new Map<string, RegisteredAgent>();
  private readonly sessions = new Map<string, string>();
  private readonly seen = new Map<string, number>();
  /** TCP connections already looked up (by their socket's inode): the agent they belong to, if any, and when. */
  private readonly connections = new Map<string, Placed>();
  /**
   * The same, by the server's own socket object: a request on a connection already placed reads
   * nothing from /proc (finding a socket's inode reads /proc/net/tcp, which costs about a
   * millisecond here however few sockets there are: the kernel walks its whole table).
   */
  private readonly sockets = new WeakMap<object, Placed>();
  /** Client processes waiting for an answer right now: HALT answers them, it does not kill them. */
  private readonly waiting = new Map<number, number>();

  /**
   * Sessions whose agent could not be placed (the client is the gate's own child, or another
   * user's), and when: not looked for again within a second, as a known one is not checked again.
   */
  private readonly unplaced = new Map<string, number>();

  /** How the gate reads /proc (a test counts the reads). */
  constructor(private readonly proc: { readonly peerSocket: typeof tcpPeerSocket; readonly readProcess: typeof readProcess } = { peerSocket: tcpPeerSocket, readProcess }) {}

  /**
   * Registers the agent behind a client; the answer releases the client's "waiting" mark. Cheap for
   * a session already known; never throws (a client that cannot be placed is simply not reached).
   */
  register(client: ClientLocator, session: string | undefined): () => void {
    const pid = 'pid' in client ? client.pid : undefined;
    // A claimed pid counts only when it is an ORACLE client's: never the person's shell or editor,
    // never a tool process kept out of HALT as "waiting".
    if (pid !== undefined && PROC_SUPPORTED && !isOracleClient(argvOf(pid) ?? [])) return () => undefined;
    if (pid !== undefined) this.waiting.set(pid, (this.waiting.get(pid) ?? 0) + 1);
    const release = (): void => {
      if (pid === undefined) return;
      const n = (this.waiting.get(pid) ?? 1) - 1;
      if (n <= 0) this.waiting.delete(pid);
      else this.waiting.set(pid, n);
    };
    if (!PROC_SUPPORTED) return release;
    const known = session === undefined ? undefined : this.sessions.get(session);
    // A session seen within the last second is taken as still served by the same agent: no /proc read per call.
    if (known !== undefined && session !== undefined && Date.now() - (this.seen.get(session) ?? 0) < RECHECK_MS) return release;
    if (known === undefined && session !== undefined && Date.now() - (this.unplaced.get(session) ?? Number.NEGATIVE_INFINITY) < RECHECK_MS) return release;
    if (known !== undefined && session !== undefined && this.alive(known)) {
      this.seen.set(session, Date.now());
      return release;
    }
    // A connection already placed (Claude Code keeps one per session; its socket's inode names it)
    // is not looked up again, and one that could not be placed is not retried on every call:
    // finding a socket's owner reads every process's descriptors.
    const object = 'connection' in client ? client.connection : undefined;
    const held = object === undefined ? undefined : this.sockets.get(object);
    if (held !== undefined && this.stillPlaced(held, session)) return release;
    const socket = 'peerPort' in client ? this.proc.peerSocket(client.peerPort, client.ourPort) : undefined;
    const connection = socket === undefined ? undefined : `tcp:${socket.inode}`;
    const placed = connection === undefined ? undefined : this.connections.get(connection);
    if (placed !== undefined && this.stillPlaced(placed, session)) {
      if (object !== undefined) this.sockets.set(object, placed);
      return release;
    }
    const agent = this.locate(client, socket);
    // An agent of another user is never registered: HALT never kills another user's processes.
    const unplaceable = agent === undefined || agent.pid === process.pid || agent.uid !== process.getuid?.();
    const now: Placed = { key: unplaceable ? undefined : processKey(agent), at: Date.now() };
    if (connection !== undefined) this.placeConnection(connection, now);
    // The same connection is never looked up again, placed or not: its peer does not change.
    if (object !== undefined) this.sockets.set(object, now);
    if (unplaceable) {
      if (session !== undefined) this.markUnplaced(session);
      return release;
    }
    const key = processKey(agent);
    if (!this.agents.has(key)) {
      this.prune();
      if (this.agents.size >= MAX_AGENTS) return release;
      const table = readProcessTable();
      const before = new Set((table === undefined ? [] : descendants(table, agent.pid)).map(processKey));
      this.agents.set(key, { agent, before });
    }
    if (session !== undefined) this.remember(session, key);
    return release;
  }

  private remember(session: string, key: string): void {
    // Bounded: the oldest sessions go first (a Map iterates in insertion order).
    for (const old of this.sessions.keys()) {
      if (this.sessions.size < MAX_SESSIONS) break;
      this.sessions.delete(old);
      this.seen.delete(old);
    }
    this.sessions.set(session, key);
    this.seen.set(session, Date.now());
    this.unplaced.delete(session);
  }

  private markUnplaced(session: string): void {
    if (this.unplaced.size >= MAX_SESSIONS) this.unplaced.clear();
    this.unplaced.set(session, Date.now());
  }

  private placeConnection(connection: string, placed: Placed): void {
    if (this.connections.size >= MAX_CONNECTIONS) this.connections.clear();
    this.connections.set(connection, placed);
  }

  /** A connection placed recently: its agent (if it had one) now also serves this session. */
  private stillPlaced(placed: Placed, session: string | undefined): boolean {
    if (Date.now() - placed.at >= CONNECTION_MS) return false;
    if (placed.key !== undefined && session !== undefined && this.agents.has(placed.key)) this.remember(session, placed.key);
    return true;
  }

  /** HALT's reach into agents: stops every tool tree first (so none forks away), then kills them all. */
  haltToolTrees(): HaltReach {
    if (!PROC_SUPPORTED) return { supported: false, agents: 0, killed: 0 };
    this.prune();
    // The gate itself too: a client run by hand from a terminal makes that shell its "agent".
    const spared = new Set([...this.waiting.keys(), process.pid]);
    const stopped = new Map<string, ProcessEntry>();
    for (let round = 0; round < STOP_ROUNDS; round++) {
      const table = readProcessTable();
      if (table === undefined) break;
      const fresh = [...this.agents.values()].flatMap((a) => toolTrees(table, a, spared)).filter((p) => !stopped.has(processKey(p)));
      if (fresh.length === 0) break;
      for (const p of fresh) if (signalProcess(p, 'SIGSTOP')) stopped.set(processKey(p), p);
    }
    const gitDirs = [...new Set([...stopped.values()].flatMap((p) => gitWorkDir(p.pid) ?? []))];
    let killed = 0;
    for (const p of stopped.values()) if (signalProcess(p, 'SIGKILL')) killed += 1;
    return { supported: true, agents: this.agents.size, killed, ...(gitDirs.length === 0 ? {} : { gitDirs }) };
  }

  private locate(client: ClientLocator, socket: Parameters<typeof socketOwner>[0] | undefined): ProcessEntry | undefined {
    if ('pid' in client) {
      const table = new Map<number, ProcessEntry>();
      // Only the chain above the client is read, not the whole table.
      for (let p = this.proc.readProcess(client.pid), hops = 0; p !== undefined && hops < 10; p = this.proc.readProcess(p.ppid), hops++) table.set(p.pid, p);
      return agentAbove(table, client.pid, argvOf);
    }
    const pid = socket === undefined ? undefined : socketOwner(socket);
    return pid === undefined ? undefined : this.proc.readProcess(pid);
  }

  private alive(key: string): boolean {
    const agent = this.agents.get(key)?.agent;
    return agent !== undefined && this.proc.readProcess(agent.pid)?.start === agent.start;
  }

  private prune(): void {
    for (const key of this.agents.keys()) if (!this.alive(key)) this.agents.delete(key);
    for (const [session, key] of this.sessions) {
      if (this.agents.has(key)) continue;
      this.sessions.delete(session);
      this.seen.delete(session);
    }
  }
}
