import { spawn } from 'node:child_process';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentProcesses } from './agent-processes.js';
import { readProcess, tcpPeerSocket } from './process-table.js';

/**
 * Placing the caller of an http hook (issue 13) costs /proc reads; a connection is placed once:
 * Claude Code sends a session's hook calls over one kept-alive connection, and reading
 * /proc/net/tcp on each of them cost about a millisecond per call here.
 */
describe.runIf(process.platform === 'linux')('the agents behind TCP connections', () => {
  let server: Server;
  let port = 0;
  const accepted: Socket[] = [];
  const clients: Socket[] = [];
  beforeAll(async () => {
    server = createServer((s) => accepted.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of [...accepted, ...clients]) s.destroy();
    await new Promise((r) => server.close(r));
  });
  const connection = async (): Promise<{ peerPort: number; ourPort: number; connection: Socket }> => {
    const client = connect(port, '127.0.0.1');
    clients.push(client);
    await new Promise((r) => client.on('connect', r));
    await new Promise((r) => setTimeout(r, 20));
    const ours = accepted.at(-1);
    if (ours === undefined) throw new Error('no connection accepted');
    return { peerPort: client.localPort ?? 0, ourPort: port, connection: ours };
  };

  it('looks a connection up once, whatever it found, and a new connection again', async () => {
    const lookups: number[] = [];
    const agents = new AgentProcesses({
      peerSocket: (peer, ours) => {
        lookups.push(peer);
        return tcpPeerSocket(peer, ours);
      },
      readProcess,
    });
    const first = await connection();
    // This test process is the peer: found, and not an agent to register (the gate's own process).
    expect(tcpPeerSocket(first.peerPort, first.ourPort)).toBeDefined();
    for (const session of ['a', 'b', 'c']) agents.register(first, session)();
    expect(lookups).toEqual([first.peerPort]);
    const second = await connection();
    agents.register(second, 'd')();
    agents.register(second, 'e')();
    expect(lookups).toEqual([first.peerPort, second.peerPort]);
    // Without the connection object (a caller that cannot name it) every call looks up again.
    agents.register({ peerPort: second.peerPort, ourPort: port }, 'f')();
    expect(lookups).toHaveLength(3);
  });

  it('does not look again within a second for the agent of a session it could not place', async () => {
    let reads = 0;
    const agents = new AgentProcesses({
      peerSocket: tcpPeerSocket,
      readProcess: (pid) => {
        reads += 1;
        return readProcess(pid);
      },
    });
    // A client whose parent is the gate itself (an MCP host in the gate's process): no agent to register.
    // Its command line reads as an ORACLE client's, the only kind whose pid claim is taken.
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', 'oracle', 'mcp'], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 100));
    try {
      const pid = child.pid ?? 0;
      agents.register({ pid }, `mcp:${String(pid)}`)();
      const first = reads;
      expect(first).toBeGreaterThan(0);
      for (let i = 0; i < 5; i++) agents.register({ pid }, `mcp:${String(pid)}`)();
      expect(reads).toBe(first);
      expect(agents.haltToolTrees()).toMatchObject({ supported: true, agents: 0, killed: 0 });
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('takes no pid claim of a process that is not an ORACLE client: the person\'s shell is never an agent (red team, session 33)', async () => {
    // A stand-in for the person's shell: an "editor" child now, a "build" child later.
    const shell = spawn(process.execPath, ['-e', "const { spawn } = require('node:child_process'); const ed = spawn('sleep', ['301'], { stdio: 'ignore' }); console.log(ed.pid); process.stdin.on('data', () => console.log(spawn('sleep', ['302'], { stdio: 'ignore' }).pid));"], { stdio: ['pipe', 'pipe', 'ignore'] });
    const lines: number[] = [];
    shell.stdout.on('data', (c: Buffer) => lines.push(...String(c).trim().split('\n').map(Number)));
    try {
      while (lines.length < 1) await new Promise((r) => setTimeout(r, 20));
      const editor = lines[0] ?? 0;
      const agents = new AgentProcesses();
      // An agent's request claims to come from the editor's pid.
      agents.register({ pid: editor }, 'spoofed')();
      shell.stdin.write('build\n');
      while (lines.length < 2) await new Promise((r) => setTimeout(r, 20));
      const build = lines[1] ?? 0;
      expect(agents.haltToolTrees()).toMatchObject({ agents: 0, killed: 0 });
      expect(readProcess(build), 'the build HALT must not touch is alive').toBeDefined();
    } finally {
      shell.kill('SIGKILL');
      for (const pid of lines) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  });
});
