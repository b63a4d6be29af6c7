import type { CompiledPolicy } from '../core/policy/compile.js';
import type { Pin } from '../core/decide/context.js';
import type { ProcessSupervisor } from '../adapters/agent/process.js';
import type { JobRoot } from '../adapters/agent/jobs.js';
import type { SandboxSupport } from '../adapters/agent/sandbox-probe.js';
import type { UndoFiles } from '../adapters/agent/undo-files.js';
import type { SecretStore } from '../adapters/secrets/index.js';
import type { Terminals } from './terminals.js';
import type { MadeFiles } from './made-files.js';

/** Limits every executor honours. */
export interface ToolhostLimits {
  readonly maxReadBytes: number;
  readonly maxOutputBytes: number;
  /** The largest file a T1 write may replace: beyond it there is no undo, so no T1 write. */
  readonly maxUndoBytes: number;
}

export const DEFAULT_LIMITS: ToolhostLimits = { maxReadBytes: 8 * 1024 * 1024, maxOutputBytes: 1024 * 1024, maxUndoBytes: 64 * 1024 * 1024 };

/** Redacts text for every output channel (SPEC §6); `known` are secret values in play. */
export type Redactor = (text: string, known: readonly string[]) => string;

/** Everything the executors may use. Built once by openToolhost(). */
export interface ToolhostEnv {
  readonly gate: CompiledPolicy;
  /**
   * false: opened only to answer an agent's hook (its own runtime runs the tools), so the sandbox
   * was never probed and nothing may run here; the boundary and the job runner refuse.
   */
  readonly runs: boolean;
  readonly supervisor: ProcessSupervisor;
  readonly jobs: JobRoot;
  readonly sandbox: SandboxSupport;
  readonly undo: UndoFiles;
  /** git for the intent tools, pinned at start like every program. */
  readonly git: Pin;
  /** Identity for commits, read once at start from the user's git config. */
  /** Who commits, unless the repository says otherwise (see gitHomeFiles). */
  readonly gitIdentity: GitIdentity | undefined;
  readonly limits: ToolhostLimits;
  readonly redact: Redactor;
  /** The values in the secret store now: hidden from every output, preview and audit record. */
  readonly knownSecrets: () => readonly string[];
  /** Named secrets (OS keyring or the 0600 file store); undefined when neither opened. */
  readonly secrets: SecretStore | undefined;
  readonly secretsReason: string;
  /** DNS for the egress broker, resolved once per hop (injected so tests can rebind). */
  readonly resolve: (host: string) => Promise<string[]>;
  /** The gate's own terminals (term.write, term.read): none open in a process that only answers hooks. */
  readonly terminals: Terminals;
  /** The files each agent session made itself and nobody changed since (made-files.ts). */
  readonly made: MadeFiles;
  readonly now: () => Date;
}

export interface GitIdentity {
  readonly name: string;
  readonly email: string;
}

/**
 * A git job's HOME holds this as `.gitconfig`: the user's identity as the job's *global* config, so
 * git's own order applies and a repository's `user.name` / `user.email` win over it (an identity
 * in the environment would override the repository's). Values are quoted as git-config(1) reads
 * them; a line break cannot be part of a name and is dropped.
 */
export function gitHomeFiles(identity: GitIdentity | undefined): Readonly<Record<string, string>> {
  if (identity === undefined) return {};
  const quote = (v: string): string => `"${v.replace(/[\r\n]/gu, ' ').replace(/[\\"]/gu, (c) => `\\${c}`)}"`;
  return { '.gitconfig': `[user]\n\tname = ${quote(identity.name)}\n\temail = ${quote(identity.email)}\n` };
}
