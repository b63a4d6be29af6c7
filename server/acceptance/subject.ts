import { OracleError } from '../../shared/oracle-error.js';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { giveTree, isEmptyOrAbsent, makeDir, openCountingListener, type CountingListener, makeTempRoot, readText, removeTree, writeBytes, writeText } from '../adapters/acceptance-host.js';
import { FileSecretStore, openSecretStore } from '../adapters/secrets/index.js';
import type { JobIdentity } from '../toolhost/types.js';
import { evaluate, type Evaluation } from '../core/decide/decide.js';
import type { RunResult } from '../core/lifecycle/run-action.js';
import type { GateMode } from '../core/decide/context.js';
import { startServer, type Running } from '../main.js';
import type { Executed, PreparedAction } from '../toolhost/types.js';
import { batteryPolicy, BATTERY_AGENT, EGRESS_CJS, EGRESS_SCRIPT, FOREIGN_DOC, FOREIGN_PDF, FOREIGN_PNG, FOREIGN_PNG_BASE64, foreignPdf, foreignReadme, PROBE_SCRIPT, PROBE_SH } from './fixtures.js';

/** The isolation the runtime reports for its children (as `oracle serve` prints it). */
export type SandboxReport = { readonly kind: 'bubblewrap'; readonly detail: string; readonly identity: JobIdentity } | { readonly kind: 'none'; readonly reason: string };

/**
 * The gate under test, as the probes see it: the real launch path (`startServer`, the same
 * composition as `oracle serve`) in a fresh home with the battery's policy. A plain object, so a
 * test can swap one part (a boundary that leaks, a missing sandbox) and watch the battery FAIL.
 */
export interface Subject {
  readonly home: string;
  readonly policyFile: string;
  readonly digest: string | null;
  mode(): GateMode;
  /** The battery's project: the scope root's child every probe job works in. */
  readonly project: string;
  /** A new folder in the project that the battery's jobs may write in (as root: given to the job account). */
  projectDir(name: string): string;
  /** The stand-in for a delegate's model API: a listener on host loopback the battery policy's delegate may reach through its job's proxy. */
  readonly api: CountingListener;
  /** Outside every scope: stands for the user's home (a fake key, a .bashrc target). */
  readonly outside: string;
  readonly jobsRoot: string;
  readonly sandbox: SandboxReport;
  readonly secrets: { readonly kind: 'keyring' | 'file' | 'none'; readonly reason: string; readonly file: string };
  readonly canary: { readonly name: string; readonly value: string };
  /** The headless lifecycle (`oracle run`): decide, audit, execute only what is allowed. */
  run(action: unknown): Promise<RunResult>;
  /** Decide only, with the gate's own context (an untainted session). */
  judge(action: unknown): Evaluation;
  /** Straight into the execution boundary: the sandbox alone stands between the job and the host. */
  dangerouslyExecute(action: PreparedAction): Promise<Executed>;
  /** Process groups the toolhost is still supervising. */
  liveProcesses(): number;
  /** Live event streams attached to the gate's event hub. */
  eventSubscribers(): number;
  readonly server: {
    readonly url: string;
    readonly ca: string;
    readonly spkiSha256: string;
    readonly desktopAuth: string;
    readonly agentAuth: string;
  };
}

export interface OpenedBattery {
  readonly subject: Subject;
  /** The gate itself, for tests that build a broken variant of one of its parts. */
  readonly running: Running;
  /** Removes the canary from the store, stops the gate, removes the scratch tree. Returns problems. */
  close(): Promise<string[]>;
}

export class BatteryHomeError extends OracleError<'BATTERY_HOME_FAILED'> {
  constructor(message: string) {
    super('BATTERY_HOME_FAILED', message);
  }
}

/**
 * Builds the battery's world and starts the gate in it: a scratch tree (project, outside), the
 * home (given, which must be empty, or fresh), the policy in the home's config/, the canary
 * secret stored before the gate starts (as an operator would, so every surface knows it), then
 * `startServer` on an ephemeral loopback port and an agent credential for the HTTPS API.
 */
export async function openBattery(options: { readonly home?: string | undefined }): Promise<OpenedBattery> {
  if (options.home !== undefined && !isEmptyOrAbsent(options.home)) {
    throw new BatteryHomeError(`the battery writes a policy, a canary secret and audit lines into its home, so it needs an empty one: \`${options.home}\` is not empty`);
  }
  const root = makeTempRoot('oracle-acceptance-');
  const problems: string[] = [];
  let running: Running | undefined;
  let api: CountingListener | undefined;
  let stored: { readonly delete: (name: string) => Promise<boolean>; readonly name: string } | undefined;
  try {
    const home = makeDir(options.home ?? join(root, 'home'));
    const projects = makeDir(join(root, 'workspace', 'projects'));
    const project = makeDir(join(projects, 'battery'));
    const outside = makeDir(join(root, 'outside-home'));
    writeText(join(project, PROBE_SCRIPT), PROBE_SH);
    writeText(join(project, EGRESS_SCRIPT), EGRESS_CJS);
    writeText(join(project, FOREIGN_DOC), foreignReadme());
    writeText(join(project, FOREIGN_PDF), foreignPdf());
    writeBytes(join(project, FOREIGN_PNG), Buffer.from(FOREIGN_PNG_BASE64, 'base64'));
    writeText(join(project, 'README.md'), '# battery\nThe project the acceptance battery works in.\n');
    // deny_always files inside the working tree, at its top and in build output: what the sandbox
    // must mask in the very tree a job works in (isolation item).
    writeText(join(project, '.env'), `BATTERY_IN_TREE=${randomBytes(8).toString('hex')}\n`);
    writeText(join(project, 'dist', '.env'), `BATTERY_IN_BUILD=${randomBytes(8).toString('hex')}\n`);
    writeText(join(outside, '.ssh', 'id_rsa'), `-----FAKE KEY OF THE ACCEPTANCE BATTERY ${randomBytes(8).toString('hex')}-----\n`);
    const policyFile = join(home, 'config', 'policy.yaml');
    api = await openCountingListener();
    const listening = api;
    writeText(policyFile, batteryPolicy({ projects, node: process.execPath, apiPort: listening.port }));

    const canary = { name: `battery-canary-${randomBytes(4).toString('hex')}`, value: `oracle-canary-${randomBytes(24).toString('hex')}` };
    const opened = await openSecretStore(home);
    await opened.store.set(canary.name, canary.value);
    stored = { delete: (name) => opened.store.delete(name), name: canary.name };

    running = await startServer({ home, port: 0 });
    const started = running;
    const { runtime } = started;
    const agent = await started.credentials.issue('ag', BATTERY_AGENT);
    const sandbox = runtime.toolhost.sandbox;
    // As root, jobs run as a dedicated account, which may write only what it owns: the battery's
    // project is given to it, as a real project must be for a job to write in it.
    if (sandbox.kind === 'bubblewrap' && sandbox.identity.kind === 'dedicated') giveTree(project, sandbox.identity);
    const store = runtime.toolhost.env.secrets;
    const subject: Subject = {
      home: runtime.gate.home,
      policyFile: runtime.gate.policyFile,
      digest: runtime.gate.digest,
      mode: () => runtime.mode(),
      project,
      api: listening,
      projectDir: (name) => {
        const made = makeDir(join(project, name));
        if (sandbox.kind === 'bubblewrap' && sandbox.identity.kind === 'dedicated') giveTree(made, sandbox.identity);
        return made;
      },
      outside,
      jobsRoot: runtime.toolhost.env.jobs.dir,
      sandbox: sandbox.kind === 'bubblewrap' ? { kind: 'bubblewrap', detail: `${sandbox.bwrap}: ${sandbox.detail}`, identity: sandbox.identity } : { kind: 'none', reason: sandbox.reason },
      secrets: { kind: store?.kind ?? 'none', reason: runtime.toolhost.env.secretsReason, file: new FileSecretStore(home).path },
      canary,
      run: (action) => runtime.run(action),
      judge: (action) => evaluate(action, runtime.gate.context),
      dangerouslyExecute: (action) => runtime.toolhost.boundary.execute(action),
      liveProcesses: () => runtime.toolhost.supervisor.live,
      eventSubscribers: () => runtime.events.subscribers,
      server: {
        url: started.url,
        ca: readText(join(home, 'certs', 'ca.crt')) ?? '',
        spkiSha256: started.spkiSha256,
        desktopAuth: `Desktop ${started.desktop.localToken}`,
        agentAuth: `Bearer ${agent.token}`,
      },
    };
    return {
      subject,
      running: started,
      async close() {
        try {
          await store?.delete(canary.name);
        } catch (e) {
          problems.push(`the canary secret \`${canary.name}\` could not be deleted: ${e instanceof Error ? e.message : 'unknown error'}`);
        }
        await started.close();
        await listening.close();
        removeTree(root);
        return problems;
      },
    };
  } catch (e) {
    // Nothing of the battery stays behind when it cannot start: no canary in a keyring, no tree.
    await stored?.delete(stored.name).catch(() => false);
    await running?.close().catch(() => undefined);
    await api?.close().catch(() => undefined);
    removeTree(root);
    throw e;
  }
}
