import type { SearchFilter, TreeSearch } from './tree-search.js';

/** One option as the command spelled it: `-r`, `--exclude` (a long one by its written name), with its value. */
export interface GivenOption {
  readonly name: string;
  readonly value?: string;
}

/** A written long option is `option` or a prefix getopt would expand to it (three letters at least). */
function spells(given: GivenOption, option: string): boolean {
  return given.name === option || (given.name.length >= 4 && option.startsWith(given.name));
}

/**
 * grep, egrep, fgrep: a search of trees only with -r, -R or `-d recurse`. Recursion and includes
 * are read leniently (any abbreviation counts: `--inc='*'` after an exclude takes the excluded file
 * back, since the last of them that names a file wins; red team, session 37); excludes only when
 * spelled in full, so an abbreviation ORACLE might misread never hides a file.
 */
export function grepSearch(options: readonly GivenOption[]): TreeSearch | undefined {
  const follows = options.some((o) => o.name === '-R' || spells(o, '--dereference-recursive'));
  // `-d ACTION` recurses unless ACTION is one of the other two (an abbreviation counts as recursing).
  const recursive = follows || options.some((o) => o.name === '-r' || spells(o, '--recursive') || ((o.name === '-d' || spells(o, '--directories')) && o.value !== 'read' && o.value !== 'skip'));
  if (!recursive) return undefined;
  const filters: SearchFilter[] = options.flatMap((o): SearchFilter[] => {
    if (o.value === undefined) return [];
    if (spells(o, '--include')) return [{ kind: 'include', glob: o.value, applies: 'file' }];
    if (o.name === '--exclude') return [{ kind: 'exclude', glob: o.value, applies: 'file' }];
    if (o.name === '--exclude-dir') return [{ kind: 'exclude', glob: o.value, applies: 'dir' }];
    return [];
  });
  return { by: 'grep', follows, skipsHidden: false, honoursIgnores: false, filters };
}

/**
 * rg searches trees always. By default it skips hidden names and what the ignore files ignore;
 * `-u` (once) stops the ignoring, `-L` follows links. Any `--no-ignore…` option counts as ignoring
 * nothing. Its own skip of dot-names is never counted on: a `!name` line in an ignore file takes
 * a dot-name back (red team, session 37); the hook gives rg `-g '!.*'` instead, which this reads
 * as the exclude it is (rg-dots.ts). Unless given `--no-config`, rg first reads the options of the
 * file RIPGREP_CONFIG_PATH names in the agent's environment, which the hook cannot see: those
 * could ignore nothing and follow links, so ORACLE assumes they do.
 */
export function rgSearch(options: readonly GivenOption[]): TreeSearch {
  const unrestricted = options.filter((o) => o.name === '-u' || spells(o, '--unrestricted')).length;
  // `--glob-case-insensitive` makes every -g glob an --iglob (`-g .ENV` then takes in `.env`; red
  // team, session 37), and `--no-glob-case-insensitive` takes that back: the last one counts. An
  // include is read without case if any of them asks for that (it then takes in more); an
  // exclude only when the last one does (it then leaves out more).
  const switches = options.filter((o) => o.name === '--glob-case-insensitive' || o.name === '--no-glob-case-insensitive');
  const anyNocase = switches.some((o) => o.name === '--glob-case-insensitive');
  const lastNocase = switches[switches.length - 1]?.name === '--glob-case-insensitive';
  const filters: SearchFilter[] = options.flatMap((o): SearchFilter[] => {
    if (o.value === undefined) return [];
    const iglob = o.name === '--iglob';
    if (o.name !== '-g' && o.name !== '--glob' && !iglob) return [];
    const exclude = o.value.startsWith('!');
    const nocase = iglob || (exclude ? lastNocase : anyNocase);
    return [{ kind: exclude ? 'exclude' : 'include', glob: exclude ? o.value.slice(1) : o.value, applies: 'any', ...(nocase ? { nocase } : {}) }];
  });
  const configured = !options.some((o) => o.name === '--no-config');
  if (configured) return { by: 'rg', follows: true, skipsHidden: false, honoursIgnores: false, filters, assumed: RG_CONFIG };
  return {
    by: 'rg',
    follows: options.some((o) => o.name === '-L' || spells(o, '--follow')),
    skipsHidden: false,
    honoursIgnores: unrestricted < 1 && !options.some((o) => o.name.startsWith('--no-ignore') || (o.name.length >= 6 && '--no-ignore'.startsWith(o.name))),
    filters,
  };
}

const RG_CONFIG = 'without `--no-config`, rg takes options from the file RIPGREP_CONFIG_PATH names, which ORACLE cannot see, so it is taken to show hidden names, ignore nothing and follow links';

/**
 * diff compares whole trees with -r, and without it still compares the files directly inside two
 * folders it is given (`diff -N . empty` prints every file of `.`): a folder operand is weighed as
 * a search either way, the deeper one standing for both. `-x PAT` leaves out files and folders by
 * name. It follows links unless told `--no-dereference`.
 */
export function diffSearch(options: readonly GivenOption[]): TreeSearch {
  const filters = options.flatMap((o): SearchFilter[] => ((o.name === '-x' || o.name === '--exclude') && o.value !== undefined ? [{ kind: 'exclude', glob: o.value, applies: 'any' }] : []));
  return { by: 'diff', follows: !options.some((o) => spells(o, '--no-dereference')), skipsHidden: false, honoursIgnores: false, filters };
}

/**
 * Claude Code's Grep tool runs rg with `--hidden`, honouring the ignore files, never following
 * links, leaving out version-control folders, and passes its `glob` input as rg globs: split at
 * whitespace, then at commas unless the piece holds braces (as the pinned CLI does). Its `type`
 * input narrows too, but is not read here (ORACLE counts the files it leaves as searched).
 */
export function claudeGrepSearch(glob: string | undefined): TreeSearch {
  const pieces = (glob ?? '').split(/\s+/u).flatMap((piece) => (piece.includes('{') && piece.includes('}') ? [piece] : piece.split(',')));
  const filters = pieces
    .filter((p) => p !== '' && p !== '!')
    .map((p): SearchFilter => ({ kind: p.startsWith('!') ? 'exclude' : 'include', glob: p.startsWith('!') ? p.slice(1) : p, applies: 'any' }));
  return { by: 'Grep', follows: false, skipsHidden: false, honoursIgnores: true, filters };
}
