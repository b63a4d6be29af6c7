import type { Writable } from 'node:stream';
import { BatteryHomeError, runBattery } from '../acceptance/battery.js';
import { renderJson, renderTable } from '../acceptance/render.js';

/**
 * `oracle acceptance [--json] [--home DIR]` (SPEC §12, §13): the host battery on this host, under
 * the real launch path. The home is DIR (absent or empty; kept afterwards, with its audit log) or
 * a fresh temporary one removed afterwards; never ORACLE_HOME, whose policy, secrets and log are
 * the user's. Exit 1 when any item is FAIL, 2 when the battery cannot be set up, else 0.
 */
export async function runAcceptance(flags: { readonly json: boolean; readonly home: string | undefined }, io: { readonly stdout: Writable; readonly stderr: Writable }): Promise<number> {
  let run;
  try {
    run = await runBattery({ home: flags.home });
  } catch (e) {
    if (!(e instanceof BatteryHomeError)) throw e;
    io.stderr.write(`oracle: ${e.message}\n`);
    return 2;
  }
  for (const problem of run.problems) io.stderr.write(`oracle: ${problem}\n`);
  io.stdout.write(flags.json ? renderJson(run.report) : renderTable(run.report));
  return run.report.summary.exit_code;
}
