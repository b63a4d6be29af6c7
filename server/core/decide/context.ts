import type { Capability } from '../../../shared/capabilities.js';
import type { ProvenanceEntry } from '../../../shared/provenance.js';
import type { CompiledPolicy } from '../policy/compile.js';
import type { RemoteFacts } from './git-fetch.js';
import type { PushFacts } from './push.js';
import type { StagingFacts } from './git-stage.js';

/** normal: the policy as written; read-only: the policy failed to load; halted: deny-all (SPEC §8). */
export type GateMode = 'normal' | 'read-only' | 'halted';

/** The mode people are shown: `degraded` while the audit log cannot be written (everything is refused). */
export type ShownMode = GateMode | 'degraded';

/**
 * A program pinned to an absolute path once, at start (SPEC §6), or why it could not be; `skipped`
 * names the candidates refused on the way (a package manager's folder, a file others can change),
 * each with why, so the gate can say so.
 */
/** A program's pin: where it runs from, or why it cannot run (`absent`: no file of that name on PATH; `skipped`: files passed over, and why). */
export type Pin = ({ readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: string; readonly absent?: true }) & { readonly skipped?: readonly string[] };

export interface Principal {
  readonly name: string;
  readonly capabilities: ReadonlySet<Capability>;
}

/** What the session knows at decision time (SPEC §4 taint; the lifecycle keeps it per session). */
export interface RuntimeState {
  readonly tainted: boolean;
  readonly provenance: readonly ProvenanceEntry[];
}

/**
 * Everything `decide` may consult. It is all data except the link reader inside `gate.host`,
 * which is the core's only I/O (resolving a path).
 */
export interface DecideContext {
  readonly gate: CompiledPolicy;
  readonly mode: GateMode;
  readonly pins: ReadonlyMap<string, Pin>;
  /** What this deployment's toolhost can execute at all. */
  readonly deployment: ReadonlySet<Capability>;
  /** The caller when the action names no agent (e.g. the local CLI). */
  readonly principal: Principal;
  readonly runtime: RuntimeState;
  /** The pinned working directory for relative paths when the action gives none. */
  readonly cwd: string | undefined;
  /** What the runtime looked up for this one action before judging it (git, at the edge). */
  readonly facts?: ActionFacts;
}

/** Facts only I/O can learn, gathered by the runtime for the action at hand; absent means not looked up. */
export interface ActionFacts {
  readonly push?: PushFacts;
  /** Where a `git fetch` or `git pull` run through exec.run reads from. */
  readonly remote?: RemoteFacts;
  /** The untracked files a `git add` or `git stash -u` run through exec.run would start tracking. */
  readonly staging?: StagingFacts;
  /** The gate's terminals, for term.write and term.read: a line for one that is not there is refused before anyone is asked. */
  readonly terminals?: { readonly running: readonly string[]; readonly ended: readonly string[] };
  /**
   * For net.fetch (also Claude Code's WebFetch and WebSearch): the values in the gate's secret
   * store long enough to refuse (MIN_REFUSED_SECRET). Held for this judgement only: a decision's
   * reasons name where a value was found, never the value.
   */
  readonly storedSecrets?: readonly string[];
  /**
   * For fs.delete: the path is a regular file the action's own session made (nothing was there
   * before its call) and that still holds what the session left in it (toolhost/made-files.ts).
   */
  readonly made?: { readonly path: string };
  /**
   * For a git command: the folder a config names as git's hooks (core.hooksPath), and whether an
   * agent may write there unasked (toolhost/git-hooks.ts); `unsure` when the config could not be
   * read whole.
   */
  readonly gitHooks?: { readonly dir: string; readonly writable: boolean } | { readonly unsure: string };
  /**
   * For a git command that prints what the repository stores: the files git says it would print
   * that the policy hides (toolhost/git-printed.ts, at most 20), or why git could not say;
   * `literal` where ORACLE runs git, which reads pathspecs literally (no exclusions).
   */
  readonly gitPrinted?: { readonly hidden: readonly string[]; readonly literal?: true } | { readonly unsure: string };
}
