import { resolve } from 'node:path';
import { desktopRequest, localGate, type LocalGate } from '../adapters/local-client.js';
import { pinOne } from '../adapters/pin-programs.js';
import { attachTerminal } from '../adapters/terminal/attach-client.js';
import { endedText, type TerminalView } from '../../shared/terminal-view.js';

export interface TermIo {
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

/** Ctrl-] leaves the terminal running and returns to the shell, as telnet's escape does. */
const DETACH = '\u001d';

/**
 * `oracle term open NAME [--cwd DIR] [-- PROGRAM ARGS…] | list | show NAME | attach NAME | close
 * NAME` (issue 16): the person's commands for the gate's terminals, over its HTTPS API with the
 * home's local desktop token. A terminal lives in the gate; this process only asks for it.
 */
export async function runTerm(home: string, words: readonly string[], options: { readonly cwd: string | undefined; readonly program: readonly string[]; readonly json: boolean }, io: TermIo): Promise<number> {
  const [sub, name, ...extra] = words;
  if (sub === undefined || extra.length > 0 || (sub !== 'list' && name === undefined) || (sub === 'list' && name !== undefined)) return usage(io);
  const gate = localGate(home);
  if (gate === undefined) {
    io.stderr.write(`oracle: no gate is running with home ${home}; terminals live in the gate (\`oracle serve\` or \`oracle service install\`)\n`);
    return 1;
  }
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> =>
    desktopRequest(home, gate, { method, path, ...(body === undefined ? {} : { body }) }).catch((e: unknown) => ({ status: 0, body: { error: { code: 'GATE_UNREACHABLE', message: e instanceof Error ? e.message : 'unreachable' } } }));
  const refused = (reply: { status: number; body: Record<string, unknown> }): number => {
    const error = reply.body['error'] as { code?: string; message?: string } | undefined;
    io.stderr.write(`oracle: ${error?.code ?? `HTTP ${String(reply.status)}`}: ${error?.message ?? 'the gate refused'}\n`);
    return 1;
  };
  const path = `/api/v1/terms${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
  switch (sub) {
    case 'list': {
      const reply = await call('GET', path);
      if (reply.status !== 200) return refused(reply);
      const terminals = reply.body['terminals'] as TerminalView[];
      if (options.json) io.stdout.write(`${JSON.stringify(terminals)}\n`);
      else if (terminals.length === 0) io.stdout.write('no terminals are open (oracle term open NAME)\n');
      else for (const t of terminals) io.stdout.write(`${t.name}\t${t.exited === null ? `pid ${String(t.pid)}` : `ended (${endedText(t.exited)})`}\t${[t.program, ...t.args].join(' ')}\tin ${t.cwd}\t${t.sandbox}\n`);
      return 0;
    }
    case 'open': {
      const program = options.program[0] ?? io.env['SHELL'] ?? '/bin/sh';
      const pinned = program.startsWith('/') ? { ok: true as const, path: program } : pinOne(program, undefined, { path: io.env['PATH'] ?? '', platform: process.platform, pathext: io.env['PATHEXT'] });
      if (!pinned.ok) {
        io.stderr.write(`oracle: ${pinned.reason}\n`);
        return 1;
      }
      const size = io.stdout.isTTY ? { cols: io.stdout.columns, rows: io.stdout.rows } : {};
      const reply = await call('POST', path.replace(/\/[^/]*$/u, ''), { name, program: pinned.path, args: options.program.slice(1), cwd: resolve(io.cwd, options.cwd ?? '.'), ...size });
      if (reply.status !== 201) return refused(reply);
      const t = reply.body['terminal'] as TerminalView;
      io.stdout.write(`terminal ${t.name} runs ${[t.program, ...t.args].join(' ')} in ${t.cwd} (${t.sandbox === 'bubblewrap' ? 'sandboxed: bubblewrap, no network' : `WITHOUT a sandbox: ${t.sandbox}`})\n`);
      io.stdout.write(`  attach: oracle term attach ${t.name}    agents: term.write (a person approves each line), term.read\n`);
      return 0;
    }
    case 'show': {
      const reply = await call('GET', `${path}?lines=1000`);
      if (reply.status !== 200) return refused(reply);
      io.stdout.write(`${String(reply.body['text'])}\n`);
      return 0;
    }
    case 'close': {
      const reply = await call('DELETE', path);
      if (reply.status !== 200) return refused(reply);
      io.stdout.write(`closed ${name ?? ''}: its processes were killed\n`);
      return 0;
    }
    case 'attach':
      return attach(home, gate, name ?? '', io);
    default:
      return usage(io);
  }
}

function usage(io: TermIo): number {
  io.stderr.write('usage: oracle term open NAME [--cwd DIR] [-- PROGRAM ARGS…] | list [--json] | show NAME | attach NAME | close NAME\n');
  return 2;
}

/** The person's own terminal: raw keys in, the terminal's output out, until Ctrl-] or its end. */
function attach(home: string, gate: LocalGate, name: string, io: TermIo): Promise<number> {
  return new Promise((done) => {
    const raw = io.stdin.isTTY;
    let code = 0;
    const restore = (): void => {
      if (raw) io.stdin.setRawMode(false);
      io.stdin.pause();
    };
    const session = attachTerminal(home, gate, name, {
      opened: () => {
        io.stderr.write(`[attached to ${name}; Ctrl-] detaches and leaves it running]\r\n`);
        if (raw) io.stdin.setRawMode(true);
        io.stdin.setEncoding('utf8');
        io.stdin.on('data', (keys: string) => {
          const at = keys.indexOf(DETACH);
          if (at >= 0) {
            if (at > 0) session.send({ t: 'in', d: keys.slice(0, at) });
            session.close();
            return;
          }
          session.send({ t: 'in', d: keys });
        });
        io.stdin.resume();
        if (io.stdout.isTTY) {
          const resized = (): void => {
            session.send({ t: 'resize', cols: io.stdout.columns, rows: io.stdout.rows });
          };
          io.stdout.on('resize', resized);
          resized();
        }
      },
      frame: (frame) => {
        if (frame.t === 'out') io.stdout.write(frame.d);
        else if (frame.t === 'exit') io.stderr.write(`\r\n[${name} ended: exit ${String(frame.code)}]\r\n`);
        else {
          io.stderr.write(`\r\noracle: ${frame.code}: ${frame.message}\r\n`);
          code = 1;
        }
      },
      closed: (why) => {
        restore();
        if (why !== '') {
          io.stderr.write(`oracle: ${why}\n`);
          code = 1;
        } else io.stderr.write(`\r\n[detached from ${name}]\r\n`);
        done(code);
      },
    });
  });
}
