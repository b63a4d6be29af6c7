import type { CompiledPolicy } from '../core/policy/compile.js';
import type { Pin } from '../core/decide/context.js';
import type { ProcessSupervisor } from '../adapters/agent/process.js';
import type { JobRoot } from '../adapters/agent/jobs.js';
import type { SandboxSupport } from '../adapters/agent/sandbox-probe.js';
import type { UndoFiles } from '../adapters/agent/undo-files.js';
import type { SecretStore } from '../adapters/secrets/index.js';

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
  readonly gitIdentity: Readonly<Record<string, string>>;
  readonly limits: ToolhostLimits;
  readonly redact: Redactor;
  /** Named secrets (OS keyring or the 0600 file store); undefined when neither opened. */
  readonly secrets: SecretStore | undefined;
  readonly secretsReason: string;
  /** DNS for the egress broker, resolved once per hop (injected so tests can rebind). */
  readonly resolve: (host: string) => Promise<string[]>;
  readonly now: () => Date;
}
