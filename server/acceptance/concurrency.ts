import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { listDir, pathFacts, processesWith, writeText } from '../adapters/acceptance-host.js';
import type { RunResult } from '../core/lifecycle/run-action.js';
import { JOB_ID } from './isolation.js';
import { describeJob, evidence, linesOf, probeAction, probeRan, until } from './probe-kit.js';
import { itemResult, OUTCOME, type Evidence, type ItemResult } from './model.js';
import type { SandboxReport, Subject } from './subject.js';

/**
 * Item 5, concurrency (seed 000 D-O5-6 item 5 and its amendment): N jobs run at once through the
 * gate. While all N are alive, the battery hands every job the real paths of all the others, so
 * the attempt is an honest cross-job read of a known path, not a guess; then every job directory
 * must be gone and no process of theirs left.
 */
export const DEFAULT_JOBS = 8;

/** What the N jobs printed: their own state intact, and every sibling refused. */
export function crossJobEvidence(runs: readonly RunResult[], markers: readonly string[], sandbox: SandboxReport): Evidence[] {
  const n = runs.length;
  const tried = `each of ${String(n)} live jobs reads own.txt in the job directory of each of the other ${String(n - 1)}, by its real path`;
  const ran = runs.filter((r) => r.executed && probeRan(r)).length;
  const own = runs.filter((r, i) => linesOf(r.stdout, 'OWN')[0] === markers[i]).length;
  const reads = runs.flatMap((r) => linesOf(r.stdout, 'READ'));
  const denied = runs.flatMap((r) => linesOf(r.stdout, 'DENIED'));
  const out: Evidence[] = [];
  const stateOk = ran === n && own === n;
  const firstBad = runs.find((r, i) => !(r.executed && linesOf(r.stdout, 'OWN')[0] === markers[i]));
  out.push(evidence('own state', `each job writes its own marker in its job directory and reads it back after all ${String(n)} started`, stateOk ? `${String(n)} of ${String(n)} read back their own marker` : `${String(ran)} ran, ${String(own)} read back their own marker; first other: ${firstBad === undefined ? 'none' : describeJob(firstBad)}`, stateOk ? OUTCOME.held : OUTCOME.error));
  if (reads.length > 0) {
    const what = `${String(reads.length)} cross-job read(s) succeeded, e.g. ${reads[0] ?? ''}`;
    out.push(sandbox.kind === 'none' ? evidence('cross-job reads', tried, `${what}: without a sandbox every job runs as the gate's user (${sandbox.reason})`, OUTCOME.missing) : evidence('cross-job reads', tried, `${what} under bubblewrap`, OUTCOME.broken));
  } else if (denied.length !== n * (n - 1)) {
    out.push(evidence('cross-job reads', tried, `expected ${String(n * (n - 1))} refusals, saw ${String(denied.length)}`, OUTCOME.error));
  } else {
    out.push(evidence('cross-job reads', tried, `all ${String(denied.length)} attempts refused (${(denied[0] ?? '').replace(/^\S+\s*/u, '')})`, OUTCOME.held));
  }
  return out;
}

export async function concurrencyItem(subject: Subject, n = DEFAULT_JOBS): Promise<ItemResult> {
  const found: Evidence[] = [];
  const run = `conc-${randomBytes(6).toString('hex')}`;
  const dir = subject.projectDir(run);
  const markers = Array.from({ length: n }, (_, i) => `${run}-job${String(i)}-${randomBytes(6).toString('hex')}`);
  const before = new Set(listDir(subject.jobsRoot));
  const fresh = () => listDir(subject.jobsRoot).filter((d) => JOB_ID.test(d) && !before.has(d));
  const runs = markers.map((marker, i) => subject.run(probeAction(subject, ['concurrency', run, String(i), marker], { timeout: 40 })));
  const ready = () => listDir(dir).filter((f) => f.startsWith('ready-')).length;
  const alive = await until(() => (ready() === n && fresh().length === n ? fresh() : undefined), 20_000);
  const jobDirs = (alive ?? fresh()).map((d) => join(subject.jobsRoot, d));
  found.push(
    evidence(
      'all at once',
      `start ${String(n)} jobs (exec.run \`sh probe.sh concurrency\`, T1) and wait until every one is alive`,
      `${String(ready())} ready, ${String(jobDirs.length)} distinct job directories alive at the same time (${jobDirs.map((d) => d.slice(-8)).join(', ')})`,
      alive === undefined ? OUTCOME.error : OUTCOME.held,
    ),
  );
  writeText(join(dir, 'targets'), jobDirs.map((d) => `${d}\n`).join(''));
  writeText(join(dir, 'go'), '');
  const done = await until(() => (listDir(dir).filter((f) => f.startsWith('done-')).length === n ? true : undefined), 20_000);
  writeText(join(dir, 'end'), '');
  const results = await Promise.all(runs);
  if (done === undefined) found.push(evidence('all at once', 'keep every job alive until all have tried their siblings', 'not every job reported done in time', OUTCOME.error));
  found.push(...crossJobEvidence(results, markers, subject.sandbox));

  const left = jobDirs.filter((d) => pathFacts(d) !== undefined);
  found.push(evidence('teardown: job dirs', `after all ${String(n)} ended, look for their job directories`, left.length === 0 ? `all ${String(jobDirs.length)} removed` : `${String(left.length)} still there: ${left.join(', ')}`, left.length === 0 ? OUTCOME.held : OUTCOME.broken));
  // A killed group can take a moment to leave the process table.
  await until(() => ((processesWith(run)?.length ?? 0) === 0 ? true : undefined), 2000);
  const leftover = processesWith(run);
  const live = subject.liveProcesses();
  const tried = `after all ${String(n)} ended, look in the host's process table for any process whose command line holds the run's marker, and at the toolhost's supervised groups`;
  if (leftover === undefined) found.push(evidence('teardown: processes', tried, `this host has no /proc to look in; the toolhost supervises ${String(live)} group(s)`, OUTCOME.missing));
  else {
    const clean = leftover.length === 0 && live === 0;
    found.push(evidence('teardown: processes', tried, clean ? 'no process left; the toolhost supervises 0 groups' : `processes left: ${leftover.join(', ') || 'none'}; supervised groups: ${String(live)}`, clean ? OUTCOME.held : OUTCOME.broken));
  }
  return itemResult('concurrency', found, `${String(n)} jobs ran at once in distinct job directories, none could read another's (even by its real path), and all ${String(n)} directories and process trees were gone afterwards`);
}
