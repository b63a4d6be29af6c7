import { join } from 'node:path';
import { dropTo } from '../adapters/agent/sandbox-probe.js';
import { commitFile, listNoFollow, makeDirs, readNoFollow, utf8Text } from '../adapters/agent/files.js';
import { startEgressProxy, type EgressProxy } from '../adapters/agent/egress-proxy.js';
import type { EgressTarget } from '../adapters/agent/egress.js';
import { CONNECT_NAME, connectScript, FORWARDER_CJS, FORWARDER_NAME, SOCKET_ENV } from './egress-forwarder.js';
import { childEnvironment } from './child-env.js';
import type { ToolhostEnv } from './env.js';
import { SYSTEM_PATHS, programRan, sandboxArgv } from './sandbox-plan.js';
import type { SandboxView } from './sandbox-masks.js';
import { failed, type ExecutionResult } from './types.js';
import { withoutPartialSecret } from '../core/redact/index.js';
import { trimEnd } from '../../shared/trim-end.js';

export interface JobSpec {
  /** Pinned absolute path. */
  readonly program: string;
  readonly args: readonly string[];
  /** Canonical working directory; the job directory when absent. */
  readonly cwd: string | undefined;
  /** Scope roots the child needs, each with the root's own mode. */
  readonly binds: readonly { readonly path: string; readonly mode: 'ro' | 'rw' }[];
  /**
   * Where the job may connect (tools granted net.egress): it still gets a network namespace of its
   * own, and its one way out is a CONNECT proxy for exactly these hosts (egress-proxy.ts), through
   * a forwarder that starts the program (egress-forwarder.ts). Absent: no network at all.
   */
  readonly egress?: readonly EgressTarget[];
  readonly timeoutMs: number;
  readonly extraEnv?: Readonly<Record<string, string>>;
  /** Secret values in play, redacted from every output. */
  readonly secrets?: readonly string[];
  /** What stays hidden inside the binds (see sandbox-masks.ts). */
  readonly view?: SandboxView;
  /** Aborted when the caller withdrew the action: the job's process group is killed. */
  readonly signal?: AbortSignal;
  /** Files written into the job directory (the child's HOME) before it starts, by name (a path below it, after `homeDirs`). */
  readonly homeFiles?: Readonly<Record<string, string>>;
  /** Folders made in the job directory before `homeFiles` are written, parents first. */
  readonly homeDirs?: readonly string[];
  /**
   * `gate`: ORACLE's own program with ORACLE's own fixed arguments (git with hooks, pagers, external
   * diffs and helpers switched off), which writes the repository as the gate's user, as fs.write
   * does. Everything an agent names runs restricted (the default): as root, the job account.
   */
  readonly runAs?: 'gate';
  /**
   * Called once the program ended, before the job directory is removed, with the regular files
   * it holds at its top level that are UTF-8 text of at most `collectMaxBytes` (links are never
   * followed): what a delegated agent left for its caller.
   */
  readonly afterRun?: (files: readonly { readonly name: string; readonly text: string }[]) => void;
  readonly collectMaxBytes?: number;
  /**
   * Output kept, in place of the toolhost's limit: only for a look of the gate's own whose output
   * the gate reads and no agent sees (a list of every file a `git log -p` touches).
   */
  readonly maxOutputBytes?: number;
}

export interface JobOutcome {
  readonly result: ExecutionResult;
  /** Set when the job directory could not be removed; the root is then blocked (audit it). */
  readonly cleanupError?: string;
}

const REDACTION_MARGIN = 65_536;

/** Redact first, then cut: never the other way round (a cut secret escapes the patterns). */
function capAfterRedaction(text: string, max: number): { text: string; cut: boolean } {
  return text.length > max ? { text: text.slice(0, max), cut: true } : { text, cut: false };
}

const underSystem = (path: string): boolean => SYSTEM_PATHS.some((s) => path === s || path.startsWith(`${s}/`));

/**
 * One job (SPEC §6): a fresh job directory, a child with an environment built from nothing,
 * under bubblewrap when the host supports it, killed as a group on timeout or HALT, output
 * capped and redacted, the job directory removed fail-closed.
 */
export async function runJob(spec: JobSpec, env: ToolhostEnv): Promise<JobOutcome> {
  if (!env.runs) return { result: failed('EXECUTOR_UNAVAILABLE', 'this process only answers a hook and runs nothing') };
  const blocked = env.jobs.blockedReason();
  if (blocked !== undefined) return { result: failed('JOB_ROOT_BLOCKED', `new jobs are refused until the job root is cleaned: ${blocked}`) };
  const job = env.jobs.create(spec.runAs !== 'gate');
  let result: ExecutionResult;
  let cleanupError: string | undefined;
  try {
    result = await runInJob(spec, job.dir, env);
    spec.afterRun?.(textFilesIn(job.dir, spec.collectMaxBytes ?? 65_536));
  } finally {
    const removed = env.jobs.remove(job);
    if (!removed.ok) cleanupError = removed.reason;
  }
  return cleanupError === undefined ? { result } : { result, cleanupError };
}

function textFilesIn(dir: string, maxBytes: number): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  for (const entry of listNoFollow(dir)) {
    if (entry.type !== 'file') continue;
    let text: string | undefined;
    try {
      text = utf8Text(readNoFollow(`${dir}/${entry.name}`, maxBytes));
    } catch {
      // too large, or gone: not returned
    }
    // Not text: not returned either.
    if (text !== undefined) out.push({ name: entry.name, text });
  }
  return out;
}

async function runInJob(spec: JobSpec, jobDir: string, env: ToolhostEnv): Promise<ExecutionResult> {
  const restricted = spec.runAs !== 'gate';
  let proxy: EgressProxy | undefined;
  try {
    if (spec.egress !== undefined) {
      proxy = await startEgressProxy({ socketPath: join(jobDir, 'egress.sock'), allow: spec.egress, resolve: env.resolve });
      if (restricted) env.jobs.giveToJob(proxy.socketPath);
    }
  } catch (e) {
    return failed('SPAWN_FAILED', `the job's egress proxy could not start: ${e instanceof Error ? e.message : 'unknown error'}`);
  }
  let result: ExecutionResult;
  try {
    result = await runWith(spec, jobDir, env, proxy);
  } finally {
    await proxy?.close();
  }
  if (proxy === undefined) return result;
  // Read once every tunnel is closed; what a job wrote into a host name or reason is redacted.
  const secrets = spec.secrets ?? [];
  const egress = proxy.connections().map((c) => ({ ...c, host: env.redact(c.host, secrets), ...(c.reason === undefined ? {} : { reason: env.redact(c.reason, secrets) }) }));
  return { ...result, egress };
}

async function runWith(spec: JobSpec, jobDir: string, env: ToolhostEnv, proxy: EgressProxy | undefined): Promise<ExecutionResult> {
  const cwd = spec.cwd ?? jobDir;
  const restricted = spec.runAs !== 'gate';
  // With egress, the forwarder starts the program (the gate's own node runs it).
  const homeFiles = proxy === undefined ? (spec.homeFiles ?? {}) : { ...spec.homeFiles, [FORWARDER_NAME]: FORWARDER_CJS };
  const scripts = proxy === undefined ? {} : { [CONNECT_NAME]: connectScript(process.execPath, join(jobDir, FORWARDER_NAME)) };
  for (const name of spec.homeDirs ?? []) {
    makeDirs(join(jobDir, name));
    if (restricted) env.jobs.giveToJob(join(jobDir, name));
  }
  for (const [name, text] of [...Object.entries(homeFiles), ...Object.entries(scripts)]) {
    commitFile(join(jobDir, name), Buffer.from(text, 'utf8'), name in scripts ? 0o700 : 0o600);
    // The job's own files belong to the account it runs as (root's dedicated job account).
    if (restricted) env.jobs.giveToJob(join(jobDir, name));
  }
  const program = proxy === undefined ? spec.program : process.execPath;
  const args = proxy === undefined ? [...spec.args] : [join(jobDir, FORWARDER_NAME), 'run', spec.program, ...spec.args];
  const extraEnv = proxy === undefined ? spec.extraEnv : { ...spec.extraEnv, [SOCKET_ENV]: proxy.socketPath };
  let file = program;
  let argv = args;
  // bubblewrap reports on fd 3 whether the program started (sandbox-plan.ts), where it can.
  const statusFd = env.sandbox.kind === 'bubblewrap' && env.sandbox.status;
  if (env.sandbox.kind === 'bubblewrap') {
    // A program installed outside the system directories is bound alone, read-only: never its
    // folder, which could be the user's home.
    const extra = [...new Set([spec.program, program])].filter((p) => !underSystem(p)).map((path) => ({ path, mode: 'ro' as const }));
    const plan = sandboxArgv({
      bwrap: env.sandbox.bwrap,
      program,
      args,
      jobDir,
      cwd,
      binds: [...extra, ...spec.binds],
      system: env.sandbox.system,
      // Never the host's network: egress goes through the job's proxy only.
      network: false,
      ...(spec.view === undefined ? {} : { readOnly: spec.view.readOnly, masks: spec.view.masks }),
      ...(restricted ? dropTo(env.sandbox.identity) : {}),
      statusFd,
    });
    file = plan.file;
    argv = plan.argv;
  }
  const run = await env.supervisor.run({
    file,
    argv,
    cwd: env.sandbox.kind === 'bubblewrap' ? jobDir : cwd,
    env: childEnvironment(jobDir, extraEnv),
    timeoutMs: spec.timeoutMs,
    // A margin past the cap, so a secret straddling the cut is whole when the sink sees it.
    maxOutputBytes: (spec.maxOutputBytes ?? env.limits.maxOutputBytes) + REDACTION_MARGIN,
    ...(spec.signal === undefined ? {} : { signal: spec.signal }),
    statusFd,
  });
  const secrets = spec.secrets ?? [];
  // Redaction can shrink the text below the cap (a long value becomes a short marker), so a value
  // the capture cut partway can end what is shown: that start of it is dropped with the rest.
  const known = [...secrets, ...env.knownSecrets()];
  // (A cut inside a character decodes to U+FFFD, which no value's start ends with: dropped first.)
  const whole = (text: string, cut: boolean): string => (cut ? withoutPartialSecret(trimEnd(text, '\uFFFD'), known) : text);
  const cap = spec.maxOutputBytes ?? env.limits.maxOutputBytes;
  const stdout = capAfterRedaction(env.redact(whole(run.stdout, run.stdoutTruncated), secrets), cap);
  const stderr = capAfterRedaction(env.redact(whole(run.stderr, run.stderrTruncated), secrets), cap);
  const streams = {
    exit_code: run.exitCode,
    stdout: stdout.text,
    stderr: stderr.text,
    truncated: run.stdoutTruncated || run.stderrTruncated || stdout.cut || stderr.cut,
    sandbox: env.sandbox.kind,
  };
  if (run.spawnError !== null) return failed('SPAWN_FAILED', `the program could not start: ${run.spawnError}`, streams);
  if (run.killed === 'timeout') return failed('TIMEOUT', `killed with its whole process group after ${spec.timeoutMs} ms`, streams);
  if (run.killed === 'halt') return failed('HALTED', 'killed with its whole process group by HALT', streams);
  if (run.killed === 'cancelled') return failed('CANCELLED', 'the caller withdrew the action; killed with its whole process group', streams);
  if (run.exitCode !== null && run.exitCode !== 0 && run.status !== undefined && !programRan(run.status)) {
    // bubblewrap reports the program's exit status once it ran (sandbox-plan.ts): without one, the
    // program never started, whatever its exit code says.
    const said = streams.stderr.trim().split('\n').at(-1) ?? '';
    return failed('SPAWN_FAILED', `the program did not start in its sandbox: ${said === '' ? `bubblewrap exited with ${String(run.exitCode)}` : said}`, streams);
  }
  if (run.exitCode !== 0) return failed('EXIT_NONZERO', `exited with ${String(run.exitCode ?? run.signal)}`, streams);
  return { ok: true, ...streams };
}
