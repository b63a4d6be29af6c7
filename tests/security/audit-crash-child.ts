/**
 * The child of tests/security/audit-crash.test.ts. The test transpiles this file to plain
 * JavaScript once and runs it with `node`, importing the BUILT appender (dist/), so each round
 * starts in tens of milliseconds. Several async writers append as fast as they can; every
 * acknowledged record is printed (`ack SEQ HASH`) the moment its promise resolves, with a
 * synchronous write, so the parent knows exactly what was acknowledged before the SIGKILL.
 *
 * argv: appender module URL, home, writers, month (`YYYY-MM`), previous month.
 */
import { writeSync } from 'node:fs';
import type * as Appender from '../../server/adapters/audit/appender.js';

const [moduleUrl, home, writersText, month, previous] = process.argv.slice(2);
if (moduleUrl === undefined || home === undefined || writersText === undefined || month === undefined || previous === undefined) {
  throw new TypeError('usage: child MODULE_URL HOME WRITERS MONTH PREVIOUS_MONTH');
}
const { openAuditLog } = (await import(moduleUrl)) as typeof Appender;
const audit = openAuditLog(home);
writeSync(1, `ready ${audit.chainHead.seq} ${audit.repaired?.removedBytes ?? 0}\n`);
// A safety net: the parent kills us long before this.
setTimeout(() => process.exit(3), 5_000).unref();

// Big records make a batch span pages, so a kill can land inside a write (a torn tail).
const preview = 'p'.repeat(1_500);
async function writer(id: number): Promise<void> {
  for (let n = 0; ; n += 1) {
    // One in five stamped with the previous month: a late writer across a month boundary.
    const ts = `${Math.random() < 0.2 ? previous : month}-15T12:00:00.000Z`;
    const record = await audit.append({ kind: 'decision', ts, actor: `writer-${id}`, tool: 'fs.read', args_preview: `${n}:${preview}` });
    writeSync(1, `ack ${record.seq} ${record.hash}\n`);
  }
}
await Promise.all(Array.from({ length: Number(writersText) }, (_, id) => writer(id)));
