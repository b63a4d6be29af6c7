import { maxTier } from '../../../shared/tiers.js';
import { canonicalize } from '../paths/canonicalize.js';
import type { DecideContext, Pin } from './context.js';
import { shortLetters, spellsLongOption } from './options.js';
import { refused, type Outcome } from './outcome.js';
import { isGit } from './programs.js';

/**
 * What a `git add` or `git stash --include-untracked|--all` run through exec.run would start
 * tracking. A file in the repository's objects is printed by `git show REV:path`, `git grep`,
 * `git diff --cached` and `git log -p`, which Claude Code runs itself, outside the sandbox that
 * hides deny_always files: so the gate refuses to put a deny_always file there at all. Which
 * files a folder-wide add takes is git's to say (its ignore rules): the runtime asks git for the
 * untracked files the same pathspecs match, and the gate judges each one.
 */

/** What to ask git: the untracked files these pathspecs match, ignored ones too when `ignored`. */
export interface StagingQuery {
  readonly pathspecs: readonly string[];
  readonly ignored: boolean;
}

/** The runtime's answer (git, at the edge): paths relative to the command's working directory. */
export type StagingFacts = { readonly ok: true; readonly files: readonly string[] } | { readonly ok: false; readonly reason: string };

/** The whole work tree, wherever in it git runs (pathspec magic `:/`). */
const WHOLE_TREE = ':/';

/**
 * The query for a git argv that can start tracking untracked files; undefined when it cannot
 * (`git add -u`, `--dry-run`, a stash of tracked changes only, any other subcommand), and
 * `unclear` when ORACLE cannot say which files it takes.
 */
export function stagingQuery(program: string, argv: readonly string[], pins: ReadonlyMap<string, Pin>): StagingQuery | { readonly unclear: string } | undefined {
  const pin = pins.get(program);
  if (pin?.ok !== true || !isGit(program, pin.path)) return undefined;
  if (argv[0] === 'add') return addQuery(argv.slice(1));
  if (argv[0] === 'stash') return stashQuery(argv.slice(1));
  return undefined;
}

/** Options and pathspecs, split at `--` as git does. */
function split(rest: readonly string[]): { options: string[]; pathspecs: string[] } {
  const options: string[] = [];
  const pathspecs: string[] = [];
  let ended = false;
  for (const token of rest) {
    if (!ended && token === '--') ended = true;
    else if (!ended && token.startsWith('-') && token !== '-') options.push(token);
    else pathspecs.push(token);
  }
  return { options, pathspecs };
}

function addQuery(rest: readonly string[]): StagingQuery | { readonly unclear: string } | undefined {
  const { options, pathspecs } = split(rest);
  const long = (name: string): boolean => options.some((t) => spellsLongOption(t, name));
  const letters = shortLetters(options.filter((t) => !t.startsWith('--')));
  if (long('--pathspec-from-file')) return { unclear: '`--pathspec-from-file` names the files somewhere ORACLE does not read' };
  if (long('--dry-run') || letters.has('n')) return undefined;
  // `-u` stages only what is tracked already.
  if (long('--update') || letters.has('u')) return undefined;
  const ignored = long('--force') || letters.has('f');
  if (pathspecs.length > 0) return { pathspecs, ignored };
  // With no pathspec, only `-A`/`--all` adds anything: the whole work tree (git 2.x).
  return long('--all') || long('--no-ignore-removal') || letters.has('A') ? { pathspecs: [WHOLE_TREE], ignored } : undefined;
}

function stashQuery(rest: readonly string[]): StagingQuery | undefined {
  const sub = rest[0] !== undefined && !rest[0].startsWith('-') ? rest[0] : 'push';
  if (sub !== 'push' && sub !== 'save') return undefined;
  const { options, pathspecs } = split(rest[0] === sub ? rest.slice(1) : rest);
  const long = (name: string): boolean => options.some((t) => spellsLongOption(t, name));
  const letters = shortLetters(options.filter((t) => !t.startsWith('--')));
  const all = long('--all') || letters.has('a');
  if (!all && !long('--include-untracked') && !letters.has('u')) return undefined;
  // `save` takes a message, never pathspecs; `push` takes pathspecs after `--` or after its options.
  return { pathspecs: sub === 'push' && pathspecs.length > 0 ? pathspecs : [WHOLE_TREE], ignored: all };
}

/**
 * Without git's list (no gate running): an add that names only existing plain files takes
 * exactly those, which the argv's own path judgement already weighed; a folder, a glob or
 * pathspec magic could take more.
 */
function namesOnlyFiles(query: StagingQuery, cwd: string | undefined, ctx: DecideContext): boolean {
  return query.pathspecs.every((spec) => {
    if (/[*?[\\]/u.test(spec) || spec.startsWith(':')) return false;
    const judged = canonicalize(spec, ctx.gate, { cwd, access: 'read' });
    return judged.ok && ctx.gate.host.reader.entry(judged.value.real).kind === 'file';
  });
}

/** An add ORACLE cannot list (`--pathspec-from-file`): a person's call. */
export function stagingUnclear(granted: Granted, argv: readonly string[], why: string): Outcome {
  return toPerson(granted, `ORACLE cannot tell which files \`git ${argv[0] ?? ''}\` takes: ${why}`);
}

type Granted = Extract<Outcome, { ok: true }>;

/** At least T2, a floor no tier rule lowers, saying why. */
function toPerson(granted: Granted, why: string): Outcome {
  return { ...granted, tier: maxTier(granted.tier, 'T2'), floor: maxTier(granted.floor ?? 'T0', 'T2'), reasons: [...granted.reasons, `${why}, so a person decides`] };
}

/** The most untracked files judged one by one; past it a person decides. */
export const MAX_STAGED_JUDGED = 20_000;

/**
 * The grammar's outcome for an allowed add or stash, with what it would start tracking judged on
 * top: a deny_always file (or one of ORACLE's own) among them refuses it, naming the file; files
 * ORACLE could not list make it a person's call.
 */
export function judgeStaging(granted: Granted, at: { readonly verb: string; readonly cwd: string | undefined; readonly query: StagingQuery }, facts: StagingFacts | undefined, ctx: DecideContext): Outcome {
  const { verb, cwd, query } = at;
  const person = (why: string): Outcome => toPerson(granted, why);
  if (facts === undefined) return namesOnlyFiles(query, cwd, ctx) ? granted : person(`which untracked files \`${verb}\` would take was not looked up`);
  if (!facts.ok) return person(facts.reason);
  if (facts.files.length > MAX_STAGED_JUDGED) return person(`\`${verb}\` would take ${String(facts.files.length)} untracked files, more than ORACLE judges one by one`);
  for (const file of facts.files) {
    const judged = canonicalize(file, ctx.gate, { cwd, access: 'read' });
    if (!judged.ok && judged.code === 'PATH_DENY_ALWAYS') {
      return refused('PATH_DENY_ALWAYS', judged.rule, `\`${verb}\` would put \`${file}\` into the repository, where git prints it: ${judged.reason}; ignore it (.gitignore) or name the files to add`);
    }
  }
  return facts.files.length === 0 ? granted : { ...granted, reasons: [...granted.reasons, `\`${verb}\` takes ${String(facts.files.length)} untracked file(s), none of them hidden by deny_always`] };
}
