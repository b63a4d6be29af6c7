import { maxTier } from '../../../shared/tiers.js';
import type { LinkReader } from '../paths/resolve.js';
import type { ActionFacts } from './context.js';
import { excludedFromTop, existsFrom, gitPrints, PATHSPEC_TAKERS } from './git-prints.js';
import { gitRead } from './git-read-only.js';
import { refused, type Outcome } from './outcome.js';

type Granted = Extract<Outcome, { ok: true }>;

/** The hidden files a refusal names, at most. */
const NAMED = 5;

/**
 * A git command that prints what the repository stores, judged by what it would print
 * (git-prints.ts, answered by the runtime): a hidden file in it is refused as a read of that
 * file would be, saying how to leave it out; none is a read (SPEC §4: git.diff and git.log are
 * T0), which a session's taint does not raise; when ORACLE could not ask, a person decides.
 * Names-only reads (git-read-only.ts) are T0 as ever. Applies to what runs at T1 unraised.
 */
export function judgeGitPrints(granted: Granted, argv: readonly string[], cwd: string | undefined, ctx: { readonly facts?: ActionFacts | undefined; readonly gate: { readonly host: { readonly reader: LinkReader } } }): Outcome {
  const { facts } = ctx;
  const reader = ctx.gate.host.reader;
  const sub = `git ${argv[0] ?? ''}`;
  const prints = gitPrints(argv, cwd === undefined ? () => false : existsFrom(cwd, reader));
  const plain = granted.tier === 'T1' && granted.floor === undefined;
  if (prints === undefined) {
    return plain && gitRead(argv) === 'names' ? { ...granted, tier: 'T0', reasons: [...granted.reasons, `\`${sub}\` prints names and states, never a file's text: a read (T0)`] } : granted;
  }
  // (an empty query prints only what its `REV:path` arguments name, judged already as paths)
  const printed = 'asks' in prints && prints.asks.length === 0 ? { hidden: [] } : facts?.gitPrinted;
  const unsure = 'unclear' in prints ? prints.unclear : printed === undefined ? 'no running gate could ask git' : 'unsure' in printed ? printed.unsure : undefined;
  if (unsure !== undefined || printed === undefined || 'unsure' in printed) {
    return personDecides(granted, `\`${sub}\` may print files the policy hides (deny_always), and ORACLE cannot tell which it prints (${unsure ?? 'no answer'}), so a person decides`);
  }
  if (printed.hidden.length > 0) {
    const shown = printed.hidden.slice(0, NAMED).map((p) => `\`${p}\``).join(', ');
    const more = printed.hidden.length > NAMED ? ` and ${String(printed.hidden.length - NAMED)} more` : '';
    const them = printed.hidden.length === 1 ? 'it' : 'them';
    const how =
      printed.literal === true
        ? `name the files to print after \`--\` (ORACLE's git reads pathspecs literally, so an exclusion leaves nothing out)`
        : PATHSPEC_TAKERS.has(argv[0] ?? '')
          ? `leave ${them} out with pathspecs: ${exclusionHint(argv, printed.hidden)}`
          : `ask git for what leaves ${them} out`;
    return refused('PATH_DENY_ALWAYS', 'deny_always', `\`${sub}\` would print ${shown}${more}, which the policy hides from agents (deny_always), from what git stores; ${how}`);
  }
  return plain ? { ...granted, tier: 'T0', reasons: [...granted.reasons, `git says \`${sub}\` prints the text of no file the policy hides: a read (T0)`] } : granted;
}

/** The command again with the hidden files excluded (pathspec magic, from the top). */
function exclusionHint(argv: readonly string[], hidden: readonly string[]): string {
  const excluded = hidden.map(excludedFromTop);
  return `\`git ${[...argv, ...(argv.includes('--') ? [] : ['--']), ...excluded].join(' ')}\``;
}

function personDecides(granted: Granted, why: string): Outcome {
  return { ...granted, tier: maxTier(granted.tier, 'T2'), floor: maxTier(granted.floor ?? 'T0', 'T2'), reasons: [...granted.reasons, why] };
}
