import type { Readable, Writable } from 'node:stream';
import { openSecretStore } from '../adapters/secrets/index.js';
import type { AuditAppender } from '../adapters/audit/appender.js';
import { desktopRequest, type LocalGate } from '../adapters/local-client.js';

/**
 * `oracle secrets list | set NAME | delete NAME`: the operator's side of the secret store. A value
 * is read from stdin (so it never lands in shell history or a process list) and never printed.
 * Every change is audited by name. With a gate running on the home it is the gate that changes
 * its store (runSecretsViaGate): it hides a new value from every output at once and audits in its
 * own chain; without one, this process opens the store and the log itself.
 */
type Io = { stdin: Readable; stdout: Writable; stderr: Writable };

type Command = { verb: 'list' } | { verb: 'set'; name: string; value: string } | { verb: 'delete'; name: string };

const USAGE = 'usage: oracle secrets list | set NAME (value on stdin) | delete NAME\n';

/** The words and, for `set`, the value from stdin (one trailing newline dropped); undefined: usage was printed. */
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
  const record = (op: string, secret: string) => audit.append({ kind: 'secret.access', ts: new Date().toISOString(), actor: 'operator', outcome: op, detail: { names: [secret] } });
  if (command.verb === 'list') {
    for (const n of await store.names()) io.stdout.write(`${n}\n`);
    return 0;
  }
  if (command.verb === 'set') {
    await store.set(command.name, command.value);
    await record('set', command.name);
    io.stdout.write(`stored ${command.name}\n`);
    return 0;
  }
  const removed = await store.delete(command.name);
  await record('delete', command.name);
  io.stdout.write(removed ? `deleted ${command.name}\n` : `no secret named ${command.name}\n`);
  return removed ? 0 : 1;
}

export async function runSecretsViaGate(home: string, gate: LocalGate, words: readonly string[], io: Io): Promise<number> {
  const command = await commandOf(words, io);
  if (typeof command === 'number') return command;
  const path = command.verb === 'list' ? '/api/v1/desk/secrets' : `/api/v1/desk/secrets/${encodeURIComponent(command.name)}`;
  let reply: { status: number; body: Record<string, unknown> };
  try {
    reply = await desktopRequest(home, gate, command.verb === 'list' ? { method: 'GET', path } : command.verb === 'set' ? { method: 'PUT', path, body: { value: command.value } } : { method: 'DELETE', path });
  } catch (e) {
    io.stderr.write(`oracle: the ORACLE gate at ${gate.url} did not answer (${e instanceof Error ? e.message : 'unknown'}); nothing was changed that it confirmed\n`);
    return 1;
  }
  if (reply.status !== 200) {
    const error = reply.body['error'] as { code?: unknown; message?: unknown } | string | undefined;
    const said = typeof error === 'object' ? `${String(error.code)}: ${String(error.message)}` : (error ?? `HTTP ${String(reply.status)}`);
    io.stderr.write(`oracle: the gate refused: ${said}\n`);
    return 1;
  }
  if (command.verb === 'list') {
    for (const n of (reply.body['names'] as unknown[] | undefined) ?? []) io.stdout.write(`${String(n)}\n`);
    return 0;
  }
  const existed = reply.body['existed'] === true;
  if (command.verb === 'set') io.stdout.write(`stored ${command.name} in the running gate's store${existed ? ' (replacing the old value)' : ''}\n`);
  else io.stdout.write(existed ? `deleted ${command.name}\n` : `no secret named ${command.name}\n`);
  return command.verb === 'delete' && !existed ? 1 : 0;
}
