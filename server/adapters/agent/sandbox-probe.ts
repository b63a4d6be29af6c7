import { existsSync, lstatSync, readlinkSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { SYSTEM_PATHS, programRan, sandboxArgv, type SystemEntry } from '../../toolhost/sandbox-plan.js';
import type { ProcessSupervisor } from './process.js';
import { describeIdentity, type JobIdentity } from './job-identity.js';

export type SandboxSupport =
  | {
      readonly kind: 'bubblewrap';
      readonly bwrap: string;
      readonly system: readonly SystemEntry[];
      readonly detail: string;
      readonly identity: JobIdentity;
      /** It reports on a status descriptor (`--json-status-fd`, bubblewrap 0.3 and later): a job that never started is told from one that failed. */
      readonly status: boolean;
    }
  | { readonly kind: 'none'; readonly reason: string };

/**
 * Detects, once at start, whether children can run under bubblewrap here, by running a real
 * probe the way jobs will run (SPEC §6: never claim isolation that is not in force).
 */
export async function probeSandbox(supervisor: ProcessSupervisor, env: { path: string; platform: NodeJS.Platform; jobDir: string; identity: JobIdentity }): Promise<SandboxSupport> {
  if (env.platform !== 'linux') return { kind: 'none', reason: `bubblewrap needs Linux; this host is ${env.platform}` };
  const bwrap = env.path.split(delimiter).filter((d) => d.startsWith('/')).map((d) => join(d, 'bwrap')).find((p) => existsSync(p));
  if (bwrap === undefined) return { kind: 'none', reason: 'bwrap is not installed (Debian: apt-get install bubblewrap)' };
  const system = systemEntries();
  const truePath = ['/usr/bin/true', '/bin/true'].find((p) => existsSync(p));
  if (truePath === undefined) return { kind: 'none', reason: 'no `true` binary to probe with' };
  const { identity } = env;
  const probeRun = async (status: boolean) => {
    const plan = sandboxArgv({ bwrap, program: truePath, args: [], jobDir: env.jobDir, cwd: env.jobDir, binds: [], system, network: false, ...dropTo(identity), statusFd: status });
    return supervisor.run({ file: plan.file, argv: plan.argv, cwd: env.jobDir, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 10_000, maxOutputBytes: 4096, statusFd: status });
  };
  // As jobs run it, with its status descriptor; an older bubblewrap without one still isolates.
  const withStatus = await probeRun(true);
  const status = withStatus.exitCode === 0 && programRan(withStatus.status ?? '');
  const result = status ? withStatus : await probeRun(false);
  if (result.exitCode !== 0) {
    return { kind: 'none', reason: `bubblewrap is installed but cannot create namespaces here: ${(result.stderr || result.spawnError || `exit ${String(result.exitCode)}`).trim()}` };
  }
  const spaces = identity.kind === 'dedicated' ? 'pid, ipc, uts and network namespaces' : 'user, pid, ipc, uts and network namespaces';
  return { kind: 'bubblewrap', bwrap, system, identity, status, detail: `${spaces}; the job dir and the working tree minus what the policy denies; system dirs read-only; ${describeIdentity(identity)}` };
}

/** The sandbox plan's `dropTo` for an identity: only a dedicated account is dropped to. */
export function dropTo(identity: JobIdentity): { dropTo?: { uid: number; gid: number; setpriv: string } } {
  return identity.kind === 'dedicated' ? { dropTo: { uid: identity.uid, gid: identity.gid, setpriv: identity.setpriv } } : {};
}

function systemEntries(): SystemEntry[] {
  const out: SystemEntry[] = [];
  for (const path of SYSTEM_PATHS) {
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) out.push({ path, kind: 'symlink', target: readlinkSync(path) });
      else out.push({ path, kind: statSync(path).isDirectory() ? 'dir' : 'file' });
    } catch {
      // absent on this host
    }
  }
  return out;
}
