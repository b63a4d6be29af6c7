import type { TextPage } from '../tools/text-page.js';
import type { Decision } from '../../../shared/decision.js';
import type { ScopedPath } from '../paths/scope.js';
import type { ToolArgs, ToolName } from '../tools/registry.js';
import type { OracleCode } from '../../../shared/outcome-codes.js';

/**
 * What judging adds to a tool's validated arguments (core/decide): the program it pinned, where a
 * push goes. Executors run these, never the agent's own spelling of them.
 */
interface CanonicalExtras {
  readonly 'exec.run': { readonly program_path: string | null };
  readonly 'exec.run_with_secrets': { readonly program_path: string | null };
  readonly 'git.push': { readonly url: string; readonly commit: string };
}

/** A tool's arguments as its executor receives them: the registry schema's output and what judging added. */
export type PreparedArgs<T extends ToolName> = Readonly<ToolArgs<T>> & (T extends keyof CanonicalExtras ? CanonicalExtras[T] : unknown);

interface PreparedBase {
  readonly actionId: string;
  readonly paths: readonly ScopedPath[];
  readonly decision: Decision;
  /** Present when a person approved a needs-approval decision (SPEC §7). */
  readonly approvalId?: string;
  /** The agent session the action belongs to (for taint). */
  readonly session?: string;
  /** Aborted when the caller withdraws the action: a running job is killed (`CANCELLED`). */
  readonly signal?: AbortSignal;
}

/**
 * An action the gate has decided on, with everything the executor needs and nothing it must look
 * up again: the canonical arguments typed by its tool (a union over the tools; `tool` tells
 * which), the scoped paths (for the step 12 re-check) and the decision that lets it run.
 */
export type PreparedAction<T extends ToolName = ToolName> = { [K in T]: PreparedBase & { readonly tool: K; readonly args: PreparedArgs<K> } }[T];

/**
 * The one place where a decision's arguments become an executor's: decide.ts parsed them with the
 * tool's own schema (core/tools/registry.ts) before anything else and only added the canonical
 * extras, so what the type says holds by construction; executors never check them again.
 */
export function prepareAction(tool: ToolName, args: Readonly<Record<string, unknown>>, rest: PreparedBase): PreparedAction {
  return { ...rest, tool, args } as PreparedAction;
}

export { EXEC_ERROR_CODES, type ExecErrorCode } from '../../../shared/outcome-codes.js';

export interface ExecutionResult {
  readonly ok: boolean;
  readonly exit_code?: number | null;
  readonly stdout?: string;
  readonly stderr?: string;
  /** What the tool produced besides streams: file content, a listing, a response. */
  readonly output?: unknown;
  /** SHA-256 of the content written, for fs.write. */
  readonly digest?: string;
  readonly undo_id?: string;
  readonly truncated?: boolean;
  /** For fs.read of a page: which lines the output holds, of how many, and where the next page starts. */
  readonly page?: Omit<TextPage, 'text'>;
  /** The isolation actually in force for a process: `bubblewrap` or `none` (never assumed). */
  readonly sandbox?: string;
  /**
   * What a job made that no agent may write (a deny_always name, ORACLE's own files), moved to
   * ORACLE's trash after it ended: where it was, why, where it is now (toolhost/planted.ts).
   */
  readonly set_aside?: readonly { readonly path: string; readonly why: string; readonly trash: string }[];
  /** Why what the job made could not be looked at (a tree too large to walk again). */
  readonly set_aside_unchecked?: string;
  /** Names (never values) of the secrets the execution read, for the audit log. */
  readonly secrets_read?: readonly string[];
  /** Every connection a network-capable job asked its egress proxy for, allowed or refused (each is audited). */
  readonly egress?: readonly EgressConnection[];
  /** Why it failed, in the one vocabulary (shared/outcome-codes.ts): an execution error, or the egress broker's. */
  readonly error?: { readonly code: OracleCode; readonly message: string };
}

/** One CONNECT through a job's egress proxy (adapters/agent/egress-proxy.ts). */
export interface EgressConnection {
  readonly host: string;
  readonly port: string;
  /** The address connected to (absent when refused before connecting). */
  readonly address?: string;
  /** `ok`, or the refusal's code (EGRESS_DENIED, EGRESS_PRIVATE_ADDRESS, EGRESS_DNS, …). */
  readonly outcome: string;
  readonly reason?: string;
  /** Bytes the job sent up the tunnel and got back. */
  readonly bytes_out: number;
  readonly bytes_in: number;
}

/** What one execution produced, plus what the lifecycle must audit besides the result. */
export interface Executed {
  readonly result: ExecutionResult;
  /** A job directory that could not be removed (the job root is now blocked). */
  readonly cleanupError?: string;
  /** The boundary refused it before any executor ran (a grant spent or changed, a path that moved): nothing ran. */
  readonly refused?: true;
}

export function failed(code: OracleCode, message: string, extra: Partial<ExecutionResult> = {}): ExecutionResult {
  return { ok: false, ...extra, error: { code, message } };
}
