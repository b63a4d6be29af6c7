import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { HaltFile } from '../adapters/halt-file.js';
import { RuntimeLock } from '../adapters/runtime-lock.js';
import { openRuntime } from '../app/runtime.js';
import { resolveHome } from '../app/gate-policy.js';

/**
 * `oracle halt --reason TEXT` and `oracle resume` (SPEC §8, §12). With a gate running on this home
 * the halt file reaches it at once (it kills its process trees, denies everything and audits);
 * with none running, this process records it in the audit log itself. Either way the HALT is on
 * disk and survives restarts until an explicit resume.
 */
export async function runHalt(options: { home: string | undefined; policy: string | undefined; reason: string | undefined; resume: boolean }, out: Writable): Promise<number> {
  const home = resolveHome(options.home, process.env);
  const dataDir = join(home, 'data');
  const file = new HaltFile(dataDir);
  const running = RuntimeLock.holder(dataDir);
  if (!options.resume && (options.reason === undefined || options.reason.trim() === '')) {
    out.write('oracle: halt needs --reason TEXT\n');
    return 2;
  }
  if (running !== undefined) {
    if (options.resume) file.remove();
    else file.write({ reason: options.reason ?? '', at: new Date().toISOString(), by: 'cli', snapshot: { running_processes: -1, in_flight: [] } });
    out.write(`${options.resume ? 'resume' : 'HALT'} sent to the running gate (pid ${String(running)})\n`);
    return 0;
  }
  const runtime = await openRuntime({ home: options.home, policy: options.policy, actor: 'cli' });
  try {
    if (options.resume) {
      const was = runtime.mode() === 'halted';
      await runtime.resume('cli');
      out.write(was ? 'resumed\n' : 'not halted\n');
    } else {
      await runtime.halt(options.reason ?? '', 'cli');
      out.write('HALTED: every action is denied until `oracle resume`\n');
    }
    return 0;
  } finally {
    await runtime.close();
  }
}
