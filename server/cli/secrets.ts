import type { Readable, Writable } from 'node:stream';
import { openSecretStore } from '../adapters/secrets/index.js';
import type { AuditAppender } from '../adapters/audit/appender.js';

/**
 * `oracle secrets list | set NAME | delete NAME`: the operator's side of the secret store. A value
 * is read from stdin (so it never lands in shell history or a process list) and never printed.
 * Every change is audited by name.
 */
export async function runSecrets(home: string, audit: AuditAppender, words: readonly string[], io: { stdin: Readable; stdout: Writable; stderr: Writable }): Promise<number> {
  const { store, reason } = await openSecretStore(home);
  io.stderr.write(`oracle: ${reason}\n`);
  const [verb, name] = words;
  const record = (op: string, secret: string) => audit.append({ kind: 'secret.access', ts: new Date().toISOString(), actor: 'operator', outcome: op, detail: { names: [secret] } });
  if (verb === 'list' && name === undefined) {
    for (const n of await store.names()) io.stdout.write(`${n}\n`);
    return 0;
  }
  if (verb === 'set' && name !== undefined) {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin as AsyncIterable<Buffer>) chunks.push(chunk);
    const value = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/u, '');
    if (value === '') {
      io.stderr.write('oracle: the secret value comes on stdin and must not be empty\n');
      return 2;
    }
    await store.set(name, value);
    await record('set', name);
    io.stdout.write(`stored ${name}\n`);
    return 0;
  }
  if (verb === 'delete' && name !== undefined) {
    const removed = await store.delete(name);
    await record('delete', name);
    io.stdout.write(removed ? `deleted ${name}\n` : `no secret named ${name}\n`);
    return removed ? 0 : 1;
  }
  io.stderr.write('usage: oracle secrets list | set NAME (value on stdin) | delete NAME\n');
  return 2;
}
