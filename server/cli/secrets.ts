import type { Readable, Writable } from 'node:stream';
import type { OracleCode } from '../../shared/outcome-codes.js';
import { openSecretStore } from '../adapters/secrets/index.js';
import type { AuditAppender } from '../adapters/audit/appender.js';
import { desktopRequest, type LocalGate } from '../adapters/local-client.js';
import type { SecretChange, SecretsDesk } from '../http/routes/desktop.js';
import { secretsDesk } from '../serve/secrets-desk.js';

/**
 * `oracle secrets list | set NAME | delete NAME`: the operator's side of the secret store. A value
 * is read from stdin (so it never lands in shell history or a process list) and never printed.
 * Every change is audited by name, before it is made. With a gate running on the home it is the
 * gate that changes its store (runSecretsViaGate): it hides a new value from every output at once
 * and audits in its own chain; without one, this process opens the store and the log itself. Both
 * go through the same desk (serve/secrets-desk.ts) and print the same answers.
 */
type Io = { stdin: Readable; stdout: Writable; stderr: Writable };

type Command = { verb: 'list' } | { verb: 'set'; name: string; value: string } | { verb: 'delete'; name: string };

const USAGE = 'usage: oracle secrets list | set NAME (value on stdin) | delete NAME\n';

/** The words and, for `set`, the value from stdin (one trailing newline dropped); a number: the exit status, usage printed. */
async function commandOf(words: readonly string[], io: Io): Promise<Command | number> {
  const [verb, name, extra] = words;
  if (extra !== undefined) return usage(io);
  if (verb === 'list' && name === undefined) return { verb };
  if (verb === 'delete' && name !== undefined) return { verb, name };
  if (verb !== 'set' || name === undefined) return usage(io);
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin as AsyncIterable<Buffer>) chunks.push(chunk);
  const value = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/u, '');
  if (value === '') {
    io.stderr.write('oracle: the secret value comes on stdin and must not be empty\n');
    return 2;
  }
  return { verb, name, value };
}

function usage(io: Io): number {
  io.stderr.write(USAGE);
  return 2;
}

export async function runSecrets(home: string, audit: AuditAppender, words: readonly string[], io: Io): Promise<number> {
  const command = await commandOf(words, io);
  if (typeof command === 'number') return command;
  const { store, reason } = await openSecretStore(home);
  io.stderr.write(`oracle: ${reason}\n`);
  return answer(command, secretsDesk(store, reason, (body) => audit.append(body)), { io, refuser: 'the secret store', stored: '' });
}

export async function runSecretsViaGate(home: string, gate: LocalGate, words: readonly string[], io: Io): Promise<number> {
  const command = await commandOf(words, io);
  if (typeof command === 'number') return command;
  return answer(command, remoteDesk(home, gate), { io, refuser: 'the gate', stored: " in the running gate's store" });
}

/** Does the command on the desk and says what came of it; the exit status. */
async function answer(command: Command, desk: SecretsDesk, say: { io: Io; refuser: string; stored: string }): Promise<number> {
  const refused = (e: { code: OracleCode; message: string }): number => {
    // A gate that did not answer refused nothing: the message says what happened.
    say.io.stderr.write(e.code === 'GATE_UNREACHABLE' ? `oracle: ${e.message}\n` : `oracle: ${say.refuser} refused: ${e.code}: ${e.message}\n`);
    return 1;
  };
  if (command.verb === 'list') {
    const names = await desk.names();
    if ('code' in names) return refused(names);
    for (const n of names) say.io.stdout.write(`${n}\n`);
    return 0;
  }
  const done = command.verb === 'set' ? await desk.set(command.name, command.value) : await desk.delete(command.name);
  if (!done.ok) return refused(done);
  if (command.verb === 'set') say.io.stdout.write(`stored ${command.name}${say.stored}${done.existed ? ' (replacing the old value)' : ''}\n`);
  else say.io.stdout.write(done.existed ? `deleted ${command.name}\n` : `no secret named ${command.name}\n`);
  return command.verb === 'delete' && !done.existed ? 1 : 0;
}

/** The running gate's desk over its HTTPS API, with the CLI's local token. */
function remoteDesk(home: string, gate: LocalGate): SecretsDesk {
  type Reply = { readonly ok: true; readonly body: Record<string, unknown> } | { readonly ok: false; readonly code: OracleCode; readonly message: string };
  const ask = async (call: { method: string; path: string; body?: unknown }): Promise<Reply> => {
    let reply: { status: number; body: Record<string, unknown> };
    try {
      reply = await desktopRequest(home, gate, call);
    } catch (e) {
      return { ok: false, code: 'GATE_UNREACHABLE', message: `the ORACLE gate at ${gate.url} did not answer (${e instanceof Error ? e.message : 'unknown'}); nothing was changed that it confirmed` };
    }
    if (reply.status === 200) return { ok: true, body: reply.body };
    const error = reply.body['error'] as { code?: unknown; message?: unknown } | string | undefined;
    return typeof error === 'object' ? { ok: false, code: String(error.code) as OracleCode, message: String(error.message) } : { ok: false, code: 'GATE_REFUSED', message: error ?? `HTTP ${String(reply.status)}` };
  };
  const changed = (reply: Reply): SecretChange => (reply.ok ? { ok: true, existed: reply.body['existed'] === true } : reply);
  const at = (name: string): string => `/api/v1/desk/secrets/${encodeURIComponent(name)}`;
  return {
    names: async () => {
      const reply = await ask({ method: 'GET', path: '/api/v1/desk/secrets' });
      return reply.ok ? ((reply.body['names'] as unknown[] | undefined) ?? []).map(String) : reply;
    },
    set: async (name, value) => changed(await ask({ method: 'PUT', path: at(name), body: { value } })),
    delete: async (name) => changed(await ask({ method: 'DELETE', path: at(name) })),
  };
}
