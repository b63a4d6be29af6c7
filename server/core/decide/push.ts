import type { EgressPolicy } from '../policy/types.js';
import { placeRemote, shownUrl } from './git-remote.js';
import { isForcePush, isSafeRefName } from './git-rules.js';
import { refused, type Outcome } from './outcome.js';

/** One commit that leaves with a push, as the card lists it. */
export interface LeavingCommit {
  readonly sha: string;
  readonly subject: string;
}

/**
 * What the runtime looked up about a push before it is judged (git, at the edge): the URL git
 * would push to, the commit the branch names now, and the commits the remote's tracking refs
 * lack (newest first, at most `shown` of `count`).
 */
export interface PushTarget {
  readonly url: string;
  readonly commit: string;
  readonly leaving: readonly LeavingCommit[];
  readonly count: number;
}

export type PushFacts = { readonly ok: true; readonly target: PushTarget } | { readonly ok: false; readonly reason: string };

export interface JudgedPush {
  readonly outcome: Outcome;
  /** Joins the resolved arguments: what the card shows and the approval binds; the executor pushes exactly it. */
  readonly extra: Readonly<Record<string, unknown>>;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * git.push (SPEC §4, §6; issue 14 "egress honesty"): a push is egress to the remote's host. The
 * shape first (no force, plain names), then the looked-up target: one network URL whose host the
 * egress allowlist admits, never a local path or a remote helper. Always at least T2.
 */
export function judgePush(args: Readonly<Record<string, unknown>>, facts: PushFacts | undefined, egress: EgressPolicy): JudgedPush {
  const remote = str(args['remote']);
  const branch = str(args['branch']);
  const shape = shapeOf(args, remote, branch);
  if (shape !== undefined) return { outcome: shape, extra: {} };
  if (facts === undefined) return { outcome: refused('GIT_REMOTE', 'git.push', 'where this push goes was not looked up, so the gate cannot judge it'), extra: {} };
  if (!facts.ok) return { outcome: refused('GIT_REMOTE', 'git.push', facts.reason), extra: {} };
  const { url, commit, leaving, count } = facts.target;
  const extra = { url: shownUrl(url), commit, leaving: leaving.map((c) => `${c.sha.slice(0, 12)} ${c.subject}`), leaving_count: count };
  const refuse = (code: 'GIT_REMOTE' | 'URL_INVALID' | 'EGRESS_DENIED', reason: string): JudgedPush => ({ outcome: refused(code, 'git.push', reason), extra });
  const place = placeRemote(remote, url, egress);
  switch (place.kind) {
    case 'local':
      return refuse('GIT_REMOTE', `${place.reason}: a push there writes outside what the gate checked`);
    case 'elsewhere':
      return refuse('GIT_REMOTE', place.reason);
    case 'password':
      return refuse('URL_INVALID', place.reason);
    case 'host':
      break;
  }
  const what = `${branch} (${count === 0 ? 'no commits the remote-tracking refs lack' : `${String(count)} commit${count === 1 ? '' : 's'}`}) to ${shownUrl(url)}`;
  const { host, listed, unlisted } = place;
  if (listed === undefined) {
    if (egress.default === 'confirm') return { outcome: { ok: true, tier: 'T2', rule: 'egress.default', reasons: [`pushing ${what}: ${unlisted}; egress.default is confirm`], floor: 'T2' }, extra };
    return refuse('EGRESS_DENIED', `${unlisted} (the host of \`${remote}\`)`);
  }
  const why = listed.why === '' ? '' : ` (${listed.why})`;
  return { outcome: { ok: true, tier: 'T2', rule: listed.rule, reasons: [`pushing ${what} is visible to others and cannot be un-published; \`${host}\` is allow-listed${why}`], floor: 'T2' }, extra };
}

function shapeOf(args: Readonly<Record<string, unknown>>, remote: string, branch: string): Outcome | undefined {
  if (args['force'] === true || isForcePush([branch])) return refused('GIT_FORCE_PUSH', 'git.push', 'force-pushing is never allowed');
  if (!isSafeRefName(remote)) return refused('ARG_SHAPE', 'git.push', `\`${remote}\` is not a plain remote name`);
  if (!isSafeRefName(branch)) return refused('ARG_SHAPE', 'git.push', `\`${branch}\` is not a plain branch name`);
  return undefined;
}
