import { reresolve } from '../core/paths/canonicalize.js';
import { OPENED_PATH_CHECKED } from '../adapters/agent/files.js';
import type { ToolName } from '../core/tools/registry.js';
import type { ToolhostEnv } from './env.js';
import { execRun, execRunWithSecrets } from './executors/exec.js';
import { fsDelete, fsList, fsRead, fsWrite } from './executors/fs.js';
import { fsMkdir, fsMove } from './executors/fs-tree.js';
import { fsSearch } from './executors/fs-search.js';
import { gitCommit, gitDiff, gitLog, gitPush, gitStatus } from './executors/git.js';
import { netFetch } from './executors/net.js';
import { agentDelegate } from './executors/delegate.js';
import { termRead, termWrite } from './executors/term.js';
import { failed, type Executed, type ExecutionResult, type PreparedAction } from './types.js';
import type { OracleCode } from '../../shared/outcome-codes.js';

type Executor<K extends ToolName> = (action: PreparedAction<K>, env: ToolhostEnv) => Executed | Promise<Executed>;

const plain =
  <K extends ToolName>(run: (action: PreparedAction<K>, env: ToolhostEnv) => ExecutionResult | Promise<ExecutionResult>): Executor<K> =>
  async (action, env) => {
    const result = await run(action, env);
    const { cleanupError, ...rest } = result as ExecutionResult & { cleanupError?: string };
    return cleanupError === undefined ? { result: rest } : { result: rest, cleanupError };
  };

/** Tools this host has no backend for: refused honestly, never pretended. */
const unavailable =
  (why: string): Executor<ToolName> =>
  () => ({ result: failed('EXECUTOR_UNAVAILABLE', why) });

const AGENT_RUNTIME = unavailable('this change is made by the calling agent’s own runtime once the gate allowed it; ORACLE’s own tools write through fs.write and fs.delete');

/**
 * One executor per tool kind (SPEC §6, seed 002 "no orphan kinds"): the type makes a tool
 * without an executor a compile error.
 */
const EXECUTORS: { readonly [K in ToolName]: Executor<K> } = {
  'fs.read': plain(fsRead),
  'fs.list': plain(fsList),
  'fs.search': plain(fsSearch),
  'fs.write': plain(fsWrite),
  'fs.delete': plain(fsDelete),
  // What an agent's own runtime does (Claude Code's Bash): judged, and kept for undo by the gate
  // (agent-changes.ts) before that runtime acts. ORACLE's own agents write through fs.write,
  // fs.delete, fs.mkdir and fs.move.
  'fs.mkdir': plain(fsMkdir),
  'fs.touch': AGENT_RUNTIME,
  'fs.copy': AGENT_RUNTIME,
  'fs.move': plain(fsMove),
  'fs.link': AGENT_RUNTIME,
  'fs.edit': AGENT_RUNTIME,
  'exec.run': execRun,
  'exec.run_with_secrets': execRunWithSecrets,
  'git.status': plain(gitStatus),
  'git.diff': plain(gitDiff),
  'git.log': plain(gitLog),
  'git.commit': plain(gitCommit),
  'git.push': plain(gitPush),
  'net.fetch': plain(netFetch),
  'agent.delegate': agentDelegate,
  'term.write': plain(termWrite),
  'term.read': plain(termRead),
  'input.synth': unavailable('this host has no input synthesis backend'),
  'sys.settings': unavailable('this host has no system settings backend'),
};

export function executorKinds(): readonly ToolName[] {
  return Object.keys(EXECUTORS) as ToolName[];
}

/**
 * The execution boundary (SPEC §1.4, §6): the sole entry point for side effects on an agent's
 * behalf. It runs only what the gate allowed, or what a person approved, and re-resolves every
 * path first (SPEC §5 step 12): a path that now resolves elsewhere aborts.
 */
/** Verifies and spends a person's approval at the moment of execution (SPEC §7). */
export interface GrantVerifier {
  consume(approvalId: string, args: Readonly<Record<string, unknown>>): { readonly ok: true } | { readonly ok: false; readonly code: OracleCode; readonly reason: string };
}

/** Without an approval desk nothing needs-approval can run. */
export const NO_GRANTS: GrantVerifier = { consume: () => ({ ok: false, code: 'APPROVAL_UNKNOWN', reason: 'no approval desk is attached' }) };

export class ExecutionBoundary {
  constructor(
    private readonly env: ToolhostEnv,
    private readonly grants: GrantVerifier = NO_GRANTS,
  ) {}

  get toolhost(): ToolhostEnv {
    return this.env;
  }

  async execute(action: PreparedAction): Promise<Executed> {
    if (!this.env.runs) return { result: failed('EXECUTOR_UNAVAILABLE', 'this process only answers a hook and runs nothing'), refused: true };
    const { decision } = action;
    if (decision.decision === 'deny') return { result: failed('NOT_ALLOWED', `the decision was deny (${decision.code})`), refused: true };
    if (decision.decision === 'needs-approval') {
      if (action.approvalId === undefined) return { result: failed('NOT_ALLOWED', 'the decision needs a person’s approval'), refused: true };
      // The executor recomputes the argument hash and spends the grant: single use, same arguments.
      const grant = this.grants.consume(action.approvalId, action.args);
      if (!grant.ok) return { result: failed(grant.code, grant.reason), refused: true };
    }
    // Step 12. fs.read on Linux checks the file it opened instead (executors/fs.ts: its
    // /proc/self/fd entry must be the decided real path): that holds at the moment of use, where a
    // walk just before the open only narrows the window.
    const checkedAtOpen = action.tool === 'fs.read' && OPENED_PATH_CHECKED;
    for (const path of checkedAtOpen ? [] : action.paths) {
      const again = reresolve(path, this.env.gate);
      if (!again.ok) return { result: failed('PATH_CHANGED', `refused before execution: ${again.reason}`), refused: true };
    }
    try {
      // Each tool's executor takes that tool's action (the map's type pairs them); TypeScript cannot
      // follow the pairing through an index by the union, so the lookup is widened here, once.
      const run = EXECUTORS[action.tool] as Executor<ToolName>;
      return await run(action, this.env);
    } catch (e) {
      return { result: failed('EXECUTION_FAILED', e instanceof Error ? e.message : 'the executor failed') };
    }
  }
}
