import type { Writable } from 'node:stream';
import { verifyAuditHome } from '../adapters/audit/read-log.js';
import { CHECKPOINT_LAG_MS, type VerifyReport } from '../core/audit/verify.js';

export interface AuditOptions {
  readonly home: string;
  readonly json: boolean;
}

/**
 * `oracle audit verify [--home DIR] [--json]` (SPEC §12): exit 0 when the log is intact, 1 when
 * it is not, with the first bad record (file, line, seq), its reason code and why; 1 as well, with
 * NO_HOME, when the home is not there at all.
 */
export async function runAudit(args: readonly string[], options: AuditOptions, out: Writable): Promise<number | undefined> {
  if (args.length !== 1 || args[0] !== 'verify') return undefined;
  let report = verifyAuditHome(options.home);
  // A running gate signs its newest records within one checkpoint interval: look again a few
  // times before calling them unsigned (a stopped gate's tail stays unsigned, and says so).
  for (let i = 0; i < 3 && report.fault?.code === 'UNSIGNED_TAIL'; i++) {
    await new Promise((r) => setTimeout(r, 2 * CHECKPOINT_LAG_MS));
    report = verifyAuditHome(options.home);
  }
  out.write(options.json ? JSON.stringify(report) + '\n' : describe(report));
  return report.ok ? 0 : 1;
}

function describe(report: VerifyReport): string {
  const checkpoint = report.checkpoint === null ? 'no checkpoint' : `checkpoint seq ${report.checkpoint.seq} signed ${report.checkpoint.ts}`;
  const fault = report.fault;
  if (fault === null) {
    const over = report.started_over === null ? '' : `NOTE: this log started over on ${report.started_over.ts}: the log and checkpoint before it were missing (its first record says so); what they held is not verified here\n`;
    return `audit log intact: ${report.records} records in ${report.files} files, head seq ${report.head.seq} (${report.head.hash}), ${checkpoint}\n${over}${signedLate(report)}`;
  }
  // Not a broken log: no log was looked at (a mistyped --home); still exit 1, never green.
  if (fault.code === 'NO_HOME') return `audit log NOT VERIFIED: ${fault.code}: ${fault.message}\n`;
  const where = fault.file === null ? '' : ` at \`${fault.file}\`${fault.line === null ? '' : ` line ${fault.line}`}`;
  const seq = fault.seq === null ? '' : ` (seq ${fault.seq})`;
  const verdict = fault.code === 'TORN_TAIL' ? 'audit log: torn tail' : fault.code === 'UNSIGNED_TAIL' ? 'audit log: unsigned tail' : 'audit log BROKEN';
  return `${verdict}${where}${seq}: ${fault.code}: ${fault.message}\n${report.records} records before it verified, head seq ${report.head.seq}; ${checkpoint}\n${signedLate(report)}`;
}

/** Each range a start found past the signed checkpoint and signed then (the log's own audit.repair record). */
function signedLate(report: VerifyReport): string {
  return report.signed_late
    .map((s) => `NOTE: seq ${s.from_seq}${s.to_seq === s.from_seq ? '' : ` to ${s.to_seq}`} followed the signed checkpoint when the gate started on ${s.ts} and were signed only then (a crash, or records added to the log file): nothing vouches for them\n`)
    .join('');
}
