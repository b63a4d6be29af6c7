import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { listDir, pathFacts, writeText } from '../adapters/acceptance-host.js';
import { describeJob, evidence, dangerouslyForcePastGate, gateRefused, linesOf, probeAction, probeRan, until } from './probe-kit.js';
import { itemResult, OUTCOME, type Evidence, type ItemResult } from './model.js';
import type { SandboxReport, Subject } from './subject.js';
import type { ExecutionResult } from '../toolhost/types.js';
import type { RunResult } from '../core/lifecycle/run-action.js';

/**
 * Item 2, isolation (seed 000 D-O5-6 item 2): a child tries to read the policy, the ORACLE home,
 * another job's directory, the secret store, and deny_always files inside the tree it works in
 * (which the sandbox binds, so only its masks hide them: red team, session 33). Two layers, each shown on its own: the gate must
 * refuse the action (it names ORACLE's own files), and, forced past the gate into the execution
 * boundary, the sandbox must show the child nothing (tests/toolhost/exec.test.ts does the same).
 */

export interface Target {
  /** One word: the probe script's label. */
  readonly label: string;
  readonly path: string;
  readonly what: string;
  /** For a directory: its entries as the host sees them (what a listing must not show). */
  readonly entries?: readonly string[];
}

export const JOB_ID = /^[0-9a-f]{32}$/u;

/**
 * Names a child listed that are really the host's: everything but the one directory on the path
 * down to the child's own job directory, which the sandbox creates empty to mount the job there.
 */
export function foreignEntries(target: Target, listed: readonly string[], self: string | undefined): string[] {
  const own = self !== undefined && self.startsWith(`${target.path}/`) ? self.slice(target.path.length + 1).split('/')[0] : undefined;
  return listed.filter((name) => name !== own);
}

/**
 * How the forced job's lines count, target by target. A file READ, or a listing that shows any
 * of the host's entries, under bubblewrap is a leak; the same with no sandbox is the missing
 * mechanism (never a PASS); a target the probe never reported is an error, and so is a probe that
 * did not run or could not read its own job directory.
 */
export function sandboxEvidence(targets: readonly Target[], result: Pick<ExecutionResult, 'stdout' | 'stderr' | 'exit_code' | 'error' | 'sandbox'>, sandbox: SandboxReport): Evidence[] {
  const tried = (t: Target) => `forced past the gate into the execution boundary: the child reads ${t.what} (${t.path})`;
  if (!probeRan(result) || linesOf(result.stdout, 'CONTROL')[0] !== 'ok') {
    return [evidence('sandbox', 'the forced probe job, with a control read of its own job directory', `the probe did not run as designed: ${describeJob(result)}`, OUTCOME.error)];
  }
  const self = linesOf(result.stdout, 'SELF')[0];
  const byLabel = (word: string) => new Map(linesOf(result.stdout, word).map((l) => [l.split(' ')[0] ?? '', l.slice((l.split(' ')[0] ?? '').length).trim()]));
  const reads = byLabel('READ');
  const listings = byLabel('LISTED');
  const denials = byLabel('DENIED');
  const leak = (t: Target, what: string): Evidence =>
    sandbox.kind === 'none'
      ? evidence(`sandbox: ${t.label}`, tried(t), `${what}: no sandbox on this host (${sandbox.reason})`, OUTCOME.missing)
      : evidence(`sandbox: ${t.label}`, tried(t), `${what} under bubblewrap`, OUTCOME.broken);
  return targets.map((t) => {
    const check = `sandbox: ${t.label}`;
    const read = reads.get(t.label);
    if (read !== undefined) return leak(t, `the child read it (${read})`);
    const listing = listings.get(t.label);
    if (listing !== undefined) {
      const foreign = foreignEntries(t, listing.split('/').filter((n) => n !== ''), self);
      if (foreign.length > 0) return leak(t, `the child listed the host's entries ${foreign.join(', ')}`);
      const host = t.entries === undefined ? '' : `, none of the host's ${String(t.entries.length)} (${t.entries.join(', ')})`;
      return evidence(check, tried(t), `the child sees only the path down to its own job directory (${listing === '' ? 'nothing' : listing.replace(/\/$/u, '')})${host}`, OUTCOME.held);
    }
    const denied = denials.get(t.label);
    if (denied !== undefined) return evidence(check, tried(t), `refused inside the job: ${denied || 'nothing there'}`, OUTCOME.held);
    return evidence(check, tried(t), `the probe reported nothing for this target: ${describeJob(result)}`, OUTCOME.error);
  });
}

/** Starts a job that writes its own secret and holds until released; returns its directory. */
async function holdSibling(subject: Subject): Promise<{ dir: string | undefined; marker: string; release: () => Promise<RunResult> }> {
  const marker = `sibling-secret-${randomBytes(8).toString('hex')}`;
  const holdDir = `hold-${randomBytes(4).toString('hex')}`;
  const before = new Set(listDir(subject.jobsRoot));
  const running = subject.run(probeAction(subject, ['hold', holdDir, marker]));
  const ready = await until(() => (pathFacts(join(subject.project, holdDir, 'ready')) === undefined ? undefined : true), 15_000);
  const dir = ready === undefined ? undefined : listDir(subject.jobsRoot).find((d) => JOB_ID.test(d) && !before.has(d));
  return {
    dir: dir === undefined ? undefined : join(subject.jobsRoot, dir),
    marker,
    release: async () => {
      writeText(join(subject.project, holdDir, 'release'), '');
      return running;
    },
  };
}

function secretTarget(subject: Subject, env: NodeJS.ProcessEnv): Target | Evidence {
  if (subject.secrets.kind === 'file') return { label: 'secret-store', path: subject.secrets.file, what: 'the secret store file (it holds the canary)' };
  const bus = /(?:^|;)unix:path=([^,;]+)/u.exec(env['DBUS_SESSION_BUS_ADDRESS'] ?? '')?.[1];
  if (subject.secrets.kind === 'keyring' && bus !== undefined) return { label: 'secret-store', path: bus, what: 'the D-Bus session socket behind the OS keyring' };
  return evidence('secret store', 'find the secret store to probe', `the store is ${subject.secrets.kind} (${subject.secrets.reason}), which this probe cannot name by path`, OUTCOME.error);
}

export async function isolationItem(subject: Subject, env: NodeJS.ProcessEnv = process.env): Promise<ItemResult> {
  const found: Evidence[] = [];
  const sibling = await holdSibling(subject);
  try {
    const targets: Target[] = [
      { label: 'policy-file', path: subject.policyFile, what: 'the policy file in force' },
      { label: 'oracle-home', path: subject.home, what: 'the ORACLE home (a listing)', entries: listDir(subject.home) },
      { label: 'audit-log', path: join(subject.home, 'logs', 'audit'), what: 'the audit log directory (a listing)', entries: listDir(join(subject.home, 'logs', 'audit')) },
      { label: 'job-root', path: subject.jobsRoot, what: 'the job root (a listing)', entries: listDir(subject.jobsRoot) },
      // In the tree the job works in, which is bound into its sandbox: the masks must hide these.
      { label: 'in-tree-env', path: join(subject.project, '.env'), what: 'a deny_always file in the working tree' },
      { label: 'build-env', path: join(subject.project, 'dist', '.env'), what: 'a deny_always file in the working tree\'s build output' },
    ];
    if (sibling.dir === undefined) found.push(evidence('sibling job', 'start a job that holds its own secret in its job directory', 'it never became ready, so there was no sibling to probe', OUTCOME.error));
    else targets.push({ label: 'sibling-job', path: join(sibling.dir, 'own.txt'), what: "another live job's file" });
    const secret = secretTarget(subject, env);
    if ('label' in secret) targets.push(secret);
    else found.push(secret);
    // Control: each target is really there and readable by the gate, or a refusal proves nothing.
    for (const t of targets) {
      if (pathFacts(t.path) === undefined) found.push(evidence(`host: ${t.label}`, `check ${t.path} exists on the host`, 'it does not, so a failed read would prove nothing', OUTCOME.error));
    }
    for (const t of targets) {
      found.push(gateRefused(`gate: ${t.label}`, `exec.run \`sh probe.sh read ${t.label} ${t.path}\` through the lifecycle (headless)`, await subject.run(probeAction(subject, ['read', t.label, t.path])), 'not-allow'));
    }
    const forced = await dangerouslyForcePastGate(subject, probeAction(subject, ['read', ...targets.flatMap((t) => [t.label, t.path])]));
    found.push(...sandboxEvidence(targets, forced, subject.sandbox));
    if (sibling.dir !== undefined && (forced.stdout ?? '').includes(sibling.marker)) {
      found.push(evidence('sandbox: sibling-job', 'look for the sibling job\'s secret in the probe\'s output', 'the sibling\'s secret appeared in the probe\'s output', subject.sandbox.kind === 'none' ? OUTCOME.missing : OUTCOME.broken));
    }
  } finally {
    const ended = await sibling.release();
    const released = ended.executed && linesOf(ended.stdout, 'RELEASED').length > 0;
    found.push(evidence('sibling job', 'a live job holding its own secret while the probes ran, then released', describeJob(ended), released ? OUTCOME.held : OUTCOME.error));
  }
  return itemResult('isolation', found, 'the gate refused every probe, and forced past it the sandbox showed the child none of the policy, the home, the audit log, the job root, a live sibling job, the secret store, or the deny_always files of the very tree it works in');
}
