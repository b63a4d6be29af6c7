import { maxTier } from '../../../shared/tiers.js';
import type { EgressPolicy } from '../policy/types.js';
import { placeRemote, shownUrl } from './git-remote.js';
import type { Pin } from './context.js';
import { isSafeRefName } from './git-rules.js';
import { isGit } from './programs.js';
import { refused, type Outcome } from './outcome.js';

/**
 * `git fetch` and `git pull` through exec.run (SPEC §4, §6; issue 12): egress to the remote's
 * host, judged like a push's. The program grammar says whether fetching is wanted at all; this
 * says where it reads from: a host the egress allowlist admits keeps the grammar's tier, an
 * unlisted one is egress.default's (a person, or refused), and whatever ORACLE cannot place (a
 * remote it could not look up, a local path, a remote helper, `--all`) is a person's call.
 */

/** Where the runtime found the remote to read from (git, at the edge): its name and fetch URL. */
export type RemoteFacts = { readonly ok: true; readonly remote: string; readonly url: string } | { readonly ok: false; readonly reason: string };

/** Options that change neither where git reads from nor what runs (fetch(1), pull(1), merge options). */
const PLAIN_OPTIONS = new Set([
  '-q', '--quiet', '-v', '--verbose', '--progress', '--no-progress', '-p', '--prune', '--no-prune', '-t', '--tags', '--no-tags',
  '--dry-run', '--ff', '--no-ff', '--ff-only', '--rebase', '--no-rebase', '-r', '--autostash', '--no-autostash', '--stat', '--no-stat',
  '-n', '--edit', '--no-edit', '--commit', '--no-commit', '--squash', '--no-squash', '--unshallow',
]);
const SUBCOMMANDS = new Set(['fetch', 'pull']);

/** Whether `program argv` is a `git fetch` or `git pull` of the git pinned at start. */
export function isGitFetch(program: string, argv: readonly string[], pins: ReadonlyMap<string, Pin>): boolean {
  const pin = pins.get(program);
  return pin?.ok === true && isGit(program, pin.path) && SUBCOMMANDS.has(argv[0] ?? '');
}

/**
 * The remote `git fetch|pull …` names (undefined: the current branch's own, which the runtime
 * looks up), or why ORACLE cannot say which servers it reads from.
 */
export function fetchRemoteArg(argv: readonly string[]): { readonly remote: string | undefined } | { readonly unclear: string } {
  const positional: string[] = [];
  for (const word of argv.slice(1)) {
    if (word === '--') return { unclear: '`--` before the remote' };
    if (word.startsWith('-')) {
      if (!PLAIN_OPTIONS.has(word) && !/^--depth=[1-9][0-9]{0,8}$/u.test(word)) return { unclear: `\`${word}\` may read from other servers or run other code` };
      continue;
    }
    positional.push(word);
  }
  const [remote, ...refspecs] = positional;
  // A refspec may only name branches: a `+` forces, a glob or an empty side deletes or fans out.
  const plainRef = (ref: string): boolean => ref.split(':').length <= 2 && ref.split(':').every((side) => isSafeRefName(side));
  const odd = refspecs.find((ref) => !plainRef(ref));
  if (odd !== undefined) return { unclear: `the refspec \`${odd}\` is not a plain branch name` };
  return { remote };
}

/** The grammar's outcome for an allowed `git fetch|pull`, with where it reads from judged on top. */
export function judgeGitFetch(granted: Extract<Outcome, { ok: true }>, argv: readonly string[], facts: RemoteFacts | undefined, egress: EgressPolicy): Outcome {
  const verb = `git ${argv[0] ?? 'fetch'}`;
  const person = (why: string): Outcome => ({ ...granted, tier: maxTier(granted.tier, 'T2'), floor: maxTier(granted.floor ?? 'T0', 'T2'), reasons: [...granted.reasons, `${why}, so a person decides`] });
  const shape = fetchRemoteArg(argv);
  if ('unclear' in shape) return person(`ORACLE cannot tell which servers \`${verb}\` reads from: ${shape.unclear}`);
  if (facts === undefined) return person(`where \`${verb}\` reads from was not looked up`);
  if (!facts.ok) return person(facts.reason);
  const place = placeRemote(facts.remote, facts.url, egress);
  switch (place.kind) {
    case 'local':
      return person(`${place.reason}, outside what the gate checked`);
    case 'elsewhere':
      return person(place.reason);
    case 'password':
      return refused('URL_INVALID', granted.rule, place.reason);
    case 'host':
      break;
  }
  const { host, listed, unlisted } = place;
  const url = shownUrl(facts.url);
  if (listed === undefined) {
    if (egress.default === 'deny') return refused('EGRESS_DENIED', 'egress.default', `${unlisted} (the host of \`${facts.remote}\`, ${url})`);
    return person(`\`${verb}\` reads from ${url}: ${unlisted} and egress.default is confirm`);
  }
  const why = listed.why === '' ? '' : ` (${listed.why})`;
  return { ...granted, reasons: [...granted.reasons, `reads from ${url}: \`${host}\` is allow-listed${why}`] };
}
