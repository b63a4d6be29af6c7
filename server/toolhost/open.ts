import { homedir } from 'node:os';
import { join } from 'node:path';
import { systemResolver } from '../adapters/agent/egress.js';
import { JobRoot } from '../adapters/agent/jobs.js';
import { ProcessSupervisor } from '../adapters/agent/process.js';
import { probeSandbox, type SandboxSupport } from '../adapters/agent/sandbox-probe.js';
import { resolveJobIdentity, type JobIdentity } from '../adapters/agent/job-identity.js';
import { UndoFiles } from '../adapters/agent/undo-files.js';
import { pinOne } from '../adapters/pin-programs.js';
import { openSecretStore, type SecretStore } from '../adapters/secrets/index.js';
import type { CompiledPolicy } from '../core/policy/compile.js';
import { ExecutionBoundary, type GrantVerifier } from './boundary.js';
import { Terminals, type TerminalDeps } from './terminals.js';
import { MadeFiles } from './made-files.js';
import { DEFAULT_LIMITS, type GitIdentity, type Redactor, type ToolhostEnv } from './env.js';

export interface ToolhostOptions {
  readonly home: string;
  /** The policy in force now: read at every use, so a reload (issue 16) reaches the executors at once. */
  readonly gate: () => CompiledPolicy;
  readonly env: NodeJS.ProcessEnv;
  readonly platform: NodeJS.Platform;
  readonly redact: Redactor;
  readonly now?: () => Date;
  readonly resolve?: (host: string) => Promise<string[]>;
  /** The approval desk that grants needs-approval actions; none means none can run. */
  readonly grants?: GrantVerifier;
  /**
   * false: only to answer a hook (Claude Code runs its own tools). No sandbox probe, no secret
   * store, no git identity lookup: nothing is spawned, and nothing can run (`ToolhostEnv.runs`).
   */
  readonly runs?: boolean;
  /** A terminal opened, wrote output, ended or was closed (for the screens). */
  readonly onTerminal?: TerminalDeps['onChange'];
}

export interface Toolhost {
  readonly boundary: ExecutionBoundary;
  readonly env: ToolhostEnv;
  readonly supervisor: ProcessSupervisor;
  readonly sandbox: SandboxSupport;
}

/**
 * Builds the toolhost once at start: the process supervisor, the job root, what isolation this
 * host really supports (probed, not assumed), the undo store, git pinned for the intents and the
 * commit identity read from the user's git config.
 */
export async function openToolhost(options: ToolhostOptions): Promise<Toolhost> {
  const supervisor = new ProcessSupervisor();
  const runs = options.runs ?? true;
  // Who children are on the host: as root, a dedicated unprivileged account (job-identity.ts).
  const identity: JobIdentity = runs ? resolveJobIdentity({ uid: process.getuid?.(), platform: options.platform, chosen: options.env['ORACLE_JOB_USER'] }) : { kind: 'mapped' };
  const sandbox: SandboxSupport = runs ? await probe(supervisor, options, identity) : { kind: 'none', reason: 'not probed: this process only answers a hook and runs nothing' };
  // Job directories belong to the account restricted jobs really run as (none when that is the gate's).
  const owner = sandbox.kind === 'bubblewrap' && sandbox.identity.kind === 'dedicated' ? { uid: sandbox.identity.uid, gid: sandbox.identity.gid } : undefined;
  const jobs = JobRoot.open(join(options.home, 'data', 'jobs'), owner);
  let secrets: SecretStore | undefined;
  let secretsReason = 'not opened: this process only answers a hook';
  if (runs) {
    try {
      const opened = await openSecretStore(options.home, { env: options.env });
      secrets = opened.store;
      secretsReason = opened.reason;
    } catch (e) {
      secretsReason = `no secret store: ${e instanceof Error ? e.message : 'unknown error'}`;
    }
  }
  // Every stored secret value is redacted from every output, not only the ones a job was given,
  // and from every preview and audit record; a secret stored through this store counts at once.
  const known = new Map<string, string>();
  if (secrets !== undefined) {
    for (const name of await secrets.names()) {
      const value = await secrets.get(name);
      if (value !== undefined && value !== '') known.set(name, value);
    }
  }
  // A value replaced or deleted stays hidden while the gate runs: a job or a terminal that got it
  // earlier may still print it, and the service it opens may still take it.
  const retired = new Set<string>();
  let knownValues: readonly string[] = [...known.values()];
  if (secrets !== undefined) {
    secrets = trackedStore(secrets, known, (old) => {
      if (old !== undefined) retired.add(old);
      knownValues = [...new Set([...known.values(), ...retired])];
    });
  }
  const knownSecrets = (): readonly string[] => knownValues;
  const git = pinOne('git', options.gate().policy.programs.get('git')?.path, { path: options.env['PATH'] ?? '', platform: options.platform, pathext: options.env['PATHEXT'] });
  const now = options.now ?? (() => new Date());
  const terminals = new Terminals({ runs, sandbox, jobs, gate: options.gate, now, onChange: options.onTerminal ?? (() => undefined) });
  const env: ToolhostEnv = {
    get gate() {
      return options.gate();
    },
    runs,
    supervisor,
    jobs,
    sandbox,
    undo: UndoFiles.open(join(options.home, 'data', 'undo')),
    git,
    gitIdentity: git.ok && runs ? await gitIdentity(supervisor, git.path) : undefined,
    limits: DEFAULT_LIMITS,
    redact: (text, given) => options.redact(text, [...given, ...knownSecrets()]),
    knownSecrets,
    secrets,
    secretsReason,
    resolve: options.resolve ?? systemResolver(),
    terminals,
    made: new MadeFiles(),
    now,
  };
  return { boundary: new ExecutionBoundary(env, options.grants), env, supervisor, sandbox };
}

/** What isolation this host really supports, probed with a real job directory. */
async function probe(supervisor: ProcessSupervisor, options: ToolhostOptions, identity: JobIdentity): Promise<SandboxSupport> {
  const once = async (as: JobIdentity): Promise<SandboxSupport> => {
    const jobs = JobRoot.open(join(options.home, 'data', 'jobs'), as.kind === 'dedicated' ? { uid: as.uid, gid: as.gid } : undefined);
    const probeJob = jobs.create();
    try {
      return await probeSandbox(supervisor, { path: options.env['PATH'] ?? '', platform: options.platform, jobDir: probeJob.dir, identity: as });
    } finally {
      jobs.remove(probeJob);
    }
  };
  const found = await once(identity);
  if (found.kind === 'bubblewrap' || identity.kind !== 'dedicated') return found;
  // The account could not be dropped to here: the sandbox without it, and every view says so.
  return once({ kind: 'root', reason: `${identity.name} could not be used: ${found.reason}` });
}

/**
 * The user's name and e-mail for commits, from their global git config (a job's HOME is its own
 * folder, where git finds no config of the user's); a clearly labelled identity when none is set.
 * It reaches a job as that job's global config, so a repository's own `user.name` still wins.
 */
async function gitIdentity(supervisor: ProcessSupervisor, git: string): Promise<GitIdentity> {
  const read = async (key: string): Promise<string> => {
    const r = await supervisor.run({ file: git, argv: ['config', '--global', '--get', key], cwd: homedir(), env: { HOME: homedir(), PATH: '/usr/bin:/bin' }, timeoutMs: 5000, maxOutputBytes: 4096 });
    return r.exitCode === 0 ? r.stdout.trim() : '';
  };
  return { name: (await read('user.name')) || 'ORACLE agent', email: (await read('user.email')) || 'oracle-agent@localhost' };
}

/** The store, with `known` kept to what it holds as secrets are set and deleted through it; `changed` gets the value a change retired. */
function trackedStore(store: SecretStore, known: Map<string, string>, changed: (retired: string | undefined) => void): SecretStore {
  return {
    kind: store.kind,
    description: store.description,
    get: (name) => store.get(name),
    names: () => store.names(),
    set: async (name, value) => {
      await store.set(name, value);
      const old = known.get(name);
      known.delete(name);
      if (value !== '') known.set(name, value);
      changed(old === value ? undefined : old);
    },
    delete: async (name) => {
      const existed = await store.delete(name);
      const old = known.get(name);
      known.delete(name);
      changed(old);
      return existed;
    },
  };
}
