import { hasOption, optionValues, parseOptions, type OptionSpec, type ParsedArgv } from './argv-options.js';
import { unsafeAwkAssignment, unsafeAwkProgram } from './awk-program.js';
import { isGlobToken, isStandardInput, joinPath, type CommandContext, type OracleAction } from './bash-context.js';
import { unsafeSedCommand } from './sed-script.js';
import { trimEnd } from '../../../shared/trim-end.js';

/**
 * The file tools of a day's work (mkdir, rmdir, touch, cp, mv, rm, ln -s, sed, awk) as the fs actions
 * they are (SPEC §4), so the gate judges every path they touch and keeps what they change for undo,
 * instead of each being an opaque program a person must approve. Parsing is an allowlist: an
 * option not named here escalates the command, never passes unread.
 * INVARIANT: nothing here allows anything; it only names what the gate must judge.
 */
type Planner = (args: readonly string[], ctx: CommandContext) => void;

const MKDIR: OptionSpec = { flags: 'pv', values: 'm', long: ['parents', 'verbose'], longValues: ['mode'] };
const RMDIR: OptionSpec = { flags: 'v', long: ['verbose', 'ignore-fail-on-non-empty'] };
const TOUCH: OptionSpec = { flags: 'acmhf', values: 'drt', long: ['no-create', 'no-dereference'], longValues: ['date', 'reference', 'time'] };
const RM: OptionSpec = { flags: 'frRdv', long: ['force', 'recursive', 'dir', 'verbose', 'one-file-system', 'preserve-root', 'no-preserve-root'] };
// -l/-s (links instead of copies), -b/-S (backup files) and --parents are not followed: escalated.
const CP: OptionSpec = {
  flags: 'rRafinpvuLPHdxT',
  values: 't',
  long: ['recursive', 'archive', 'force', 'interactive', 'no-clobber', 'verbose', 'dereference', 'no-dereference', 'no-target-directory', 'remove-destination', 'strip-trailing-slashes', 'one-file-system'],
  longValues: ['target-directory', 'no-preserve', 'sparse'],
  longOptional: ['preserve', 'update', 'reflink'],
};
const MV: OptionSpec = {
  flags: 'finvuT',
  values: 't',
  long: ['force', 'interactive', 'no-clobber', 'verbose', 'no-target-directory', 'strip-trailing-slashes'],
  longValues: ['target-directory'],
  longOptional: ['update'],
};
// git mv: -f overwrites, -k skips what cannot move, -n only says what would move; no -t.
const GIT_MV: OptionSpec = { flags: 'fknv', long: ['force', 'dry-run', 'verbose', 'sparse'] };
const LN: OptionSpec = { flags: 'sfnvT', values: 't', long: ['symbolic', 'force', 'no-dereference', 'verbose', 'no-target-directory'], longValues: ['target-directory'] };
const SED: OptionSpec = {
  flags: 'nrEsuz',
  values: 'efl',
  optional: 'i',
  long: ['quiet', 'silent', 'regexp-extended', 'separate', 'unbuffered', 'null-data', 'posix', 'debug', 'sandbox', 'follow-symlinks'],
  longValues: ['expression', 'file', 'line-length'],
  longOptional: ['in-place'],
};

const PLANNERS: Readonly<Record<string, Planner>> = Object.assign(Object.create(null) as Record<string, Planner>, {
  mkdir: (args: readonly string[], ctx: CommandContext) => {
    const parsed = readOptions(args, MKDIR, 'mkdir', ctx);
    if (parsed !== undefined) each(parsed.operands, 'mkdir', ctx, (path) => ({ tool: 'fs.mkdir', args: { path } }));
  },
  rmdir: (args: readonly string[], ctx: CommandContext) => {
    const parsed = readOptions(args, RMDIR, 'rmdir', ctx);
    if (parsed !== undefined) each(parsed.operands, 'rmdir', ctx, (path) => ({ tool: 'fs.delete', args: { path } }));
  },
  touch: (args: readonly string[], ctx: CommandContext) => {
    const parsed = readOptions(args, TOUCH, 'touch', ctx);
    if (parsed === undefined) return;
    for (const reference of optionValues(parsed, 'r', 'reference')) each([reference], 'touch', ctx, (path) => ({ tool: 'fs.read', args: { path } }));
    each(parsed.operands, 'touch', ctx, (path) => ({ tool: 'fs.touch', args: { path } }));
  },
  rm: (args: readonly string[], ctx: CommandContext) => {
    const parsed = readOptions(args, RM, 'rm', ctx);
    if (parsed === undefined) return;
    if (hasOption(parsed, 'no-preserve-root')) {
      ctx.sink.deny('`rm --no-preserve-root` asks to be allowed to delete `/`');
      return;
    }
    each(parsed.operands, 'rm', ctx, (path) => ({ tool: 'fs.delete', args: { path } }));
  },
  cp: (args: readonly string[], ctx: CommandContext) => {
    transfer(args, ctx, { program: 'cp', spec: CP, tool: 'fs.copy' });
  },
  mv: (args: readonly string[], ctx: CommandContext) => {
    transfer(args, ctx, { program: 'mv', spec: MV, tool: 'fs.move' });
  },
  ln: link,
  sed,
  // Debian's awk is mawk, macOS's the one true awk; gawk by its own name too.
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
});

/** Plans a file command; false when `program` is not one. */
export function fileCommand(program: string, args: readonly string[], ctx: CommandContext): boolean {
  const plan = PLANNERS[program];
  if (plan === undefined) return false;
  plan(args, ctx);
  return true;
}

function readOptions(args: readonly string[], spec: OptionSpec, program: string, ctx: CommandContext): ParsedArgv | undefined {
  const parsed = parseOptions(args, spec);
  if (!parsed.ok) {
    ctx.sink.ask(`\`${program} ${parsed.option}\` is not an option ORACLE follows`);
    return undefined;
  }
  // An option takes one word, and the shell passes every match of a glob: the first becomes the
  // value and the rest operands (`touch -r ro/* f` touches ro's other files).
  for (const [name, values] of parsed.value.options) {
    if (values.some((v) => typeof v === 'string' && isGlobToken(v))) {
      ctx.sink.ask(`a glob as the value of \`${program} ${name.length === 1 ? '-' : '--'}${name}\`: the shell passes every match, and all but the first become operands; name the file`);
      return undefined;
    }
  }
  return parsed.value;
}

/** Operands a command treats alike, a glob's token (bash-actions.ts) standing for every path it can match. */
const expand = (operands: readonly string[], ctx: CommandContext): string[] => operands.flatMap((o) => ctx.globs?.take(o) ?? [o]);

function each(given: readonly string[], program: string, ctx: CommandContext, action: (path: string) => OracleAction): void {
  const operands = expand(given, ctx);
  if (operands.length === 0) {
    ctx.sink.note(`\`${program}\` without an operand changes nothing`);
    return;
  }
  for (const cwd of ctx.cwds) for (const operand of operands) ctx.sink.action(action(joinPath(cwd, operand)));
}

/** The last name of an absolute path, and the folder it is in (trailing `/` ignored). */
export const basename = (path: string): string => trimEnd(path, '/').split('/').pop() ?? '';
export const dirname = (path: string): string => {
  const trimmed = trimEnd(path, '/');
  const cut = trimmed.lastIndexOf('/');
  return cut <= 0 ? '/' : trimmed.slice(0, cut);
};

/** Where each source lands: `-t DIR`, several sources or a destination ending in `/` put every source inside it. */
function destinations(parsed: ParsedArgv, ctx: CommandContext, program: string): { from: string; to: string }[] | undefined {
  const target = optionValues(parsed, 't', 'target-directory');
  const noTarget = hasOption(parsed, 'T', 'no-target-directory');
  const operands = [...parsed.operands];
  if (target.length > 1 || (target.length === 1 && noTarget)) {
    ctx.sink.ask(`\`${program}\` with conflicting target options`);
    return undefined;
  }
  const dest = target[0] ?? operands.pop();
  if (dest === undefined || operands.length === 0) {
    ctx.sink.ask(`\`${program}\` without a source and a destination`);
    return undefined;
  }
  if (noTarget) {
    ctx.sink.ask(`\`${program} -T\` is not followed`);
    return undefined;
  }
  // One source onto a plain name lands on it, or inside it when it is a folder: the gate knows
  // which (decide/landing.ts).
  const inside = target.length === 1 || operands.length > 1 || dest.endsWith('/');
  // A glob's paths are sources only where they land alike however many the shell passes (a glob
  // left untaken is a person's call).
  const sources = inside ? expand(operands, ctx) : operands;
  return sources.map((from) => ({ from, to: inside ? `${trimEnd(dest, '/')}/${basename(from)}` : dest }));
}

function transfer(args: readonly string[], ctx: CommandContext, what: { program: string; spec: OptionSpec; tool: 'fs.copy' | 'fs.move' }): void {
  const parsed = readOptions(args, what.spec, what.program, ctx);
  if (parsed === undefined) return;
  // A recursive copy that follows the links inside copies what they lead to, which no path here names.
  if (what.tool === 'fs.copy' && hasOption(parsed, 'r', 'R', 'a', 'recursive', 'archive') && hasOption(parsed, 'L', 'dereference')) {
    ctx.sink.ask('`cp -r` with `-L`/`--dereference` copies what the links inside lead to, which ORACLE does not follow');
    return;
  }
  const moves = destinations(parsed, ctx, what.program);
  if (moves === undefined) return;
  for (const cwd of ctx.cwds) for (const move of moves) ctx.sink.action({ tool: what.tool, args: { to: joinPath(cwd, move.to), from: joinPath(cwd, move.from) } });
}

/**
 * `git mv SRC… DST` moves files in the work tree as `mv` does (and records the rename in the
 * index): judged as the same moves, so deny_always, the scopes and a rule on what lands where
 * (a CI workflow) weigh it, and undo keeps what it changes. The git command is judged besides.
 */
export function gitMove(args: readonly string[], ctx: CommandContext): void {
  transfer(args, ctx, { program: 'git mv', spec: GIT_MV, tool: 'fs.move' });
}

/** `ln -s TARGET [LINK]`: the link is judged where it is made, its target where it leads. */
function link(args: readonly string[], ctx: CommandContext): void {
  const parsed = readOptions(args, LN, 'ln', ctx);
  if (parsed === undefined) return;
  if (!hasOption(parsed, 's', 'symbolic')) {
    ctx.sink.ask('`ln` without `-s` makes a hard link, another name for the same file ORACLE does not follow');
    return;
  }
  const lone = parsed.operands.length === 1 && optionValues(parsed, 't', 'target-directory').length === 0;
  if (lone && isGlobToken(parsed.operands[0] ?? '')) {
    // `ln -s dir/*` is `ln -s dir/a dir/b`: the last match is the link's name, not `./`.
    ctx.sink.ask('`ln -s` with a glob as its only operand: the shell makes the last match the link and the others its targets; name the link');
    return;
  }
  const operands = lone ? [...parsed.operands, './'] : parsed.operands;
  const placed = destinations({ ...parsed, operands }, ctx, 'ln');
  if (placed === undefined) return;
  for (const cwd of ctx.cwds) {
    for (const { from: target, to } of placed) {
      const at = joinPath(cwd, to);
      // A relative target is read by the kernel from the link's own folder, not from the cwd.
      ctx.sink.action({ tool: 'fs.link', args: { path: at, target: target.startsWith('/') ? target : joinPath(dirname(at), target) } });
    }
  }
}

/**
 * sed reads files and prints; with `-i` it edits them in place (an fs.edit each, and a backup
 * copy with `-i.bak`). Its script is read first: one that could write or run anything escalates.
 */
function sed(args: readonly string[], ctx: CommandContext): void {
  const parsed = readOptions(args, SED, 'sed', ctx);
  if (parsed === undefined) return;
  if (hasOption(parsed, 'f', 'file')) {
    ctx.sink.ask('`sed -f` runs a script from a file the analysis cannot see');
    return;
  }
  const given = optionValues(parsed, 'e', 'expression');
  const operands = [...parsed.operands];
  const scripts = given.length > 0 ? given : operands.splice(0, 1);
  if (scripts.length === 0) {
    ctx.sink.ask('`sed` without a script');
    return;
  }
  for (const script of scripts) {
    const unsafe = unsafeSedCommand(script);
    if (unsafe !== undefined) {
      ctx.sink.ask(`this sed script has ${unsafe}`);
      return;
    }
  }
  const inPlace = [...(parsed.options.get('i') ?? []), ...(parsed.options.get('in-place') ?? [])];
  if (inPlace.length === 0) {
    if (operands.length === 0) ctx.sink.note('`sed` reads its standard input');
    else each(operands, 'sed', ctx, (path) => ({ tool: 'fs.read', args: { path } }));
    return;
  }
  if (operands.length === 0) {
    ctx.sink.ask('`sed -i` without a file');
    return;
  }
  const suffix = inPlace.find((v): v is string => typeof v === 'string' && v !== '');
  if (suffix !== undefined && (suffix.includes('*') || suffix.includes('/'))) {
    ctx.sink.ask(`\`sed -i${suffix}\` puts its backup somewhere the analysis does not follow`);
    return;
  }
  for (const cwd of ctx.cwds) {
    for (const operand of operands) {
      const path = joinPath(cwd, operand);
      if (suffix !== undefined) ctx.sink.action({ tool: 'fs.copy', args: { to: `${path}${suffix}`, from: path } });
      ctx.sink.action({ tool: 'fs.edit', args: { path, program: 'sed', args: [...args] } });
    }
  }
}

/**
 * awk reads files and prints what its program computes; the program is read first (awk-program.ts)
 * and one that could run, write or read anything else escalates. Its options end at the program
 * (POSIX getopt, not GNU's: `awk '{print}' -F .env` reads the files `-F` and `.env`), and only -F
 * and -v are followed. An operand `NAME=value` is an assignment awk makes when it reaches it; every
 * other operand is a file it reads.
 */
function awk(args: readonly string[], ctx: CommandContext): void {
  const assignments: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      i++;
      break;
    }
    if (!arg.startsWith('-') || arg === '-') break;
    const option = /^--(field-separator|assign)(?:=(.*))?$/su.exec(arg) ?? /^-([Fv])(.+)?$/su.exec(arg);
    if (option === null) {
      ctx.sink.ask(`\`awk ${arg}\` is not an option ORACLE follows`);
      return;
    }
    const value = option[2] ?? args[++i];
    if (value === undefined || isGlobToken(value)) {
      ctx.sink.ask(`\`awk ${arg}\` without a literal value`);
      return;
    }
    if (option[1] === 'v' || option[1] === 'assign') assignments.push(value);
  }
  const program = args[i];
  // A glob as the program: the shell would make the first name it matches the program text.
  if (program === undefined || isGlobToken(program)) {
    ctx.sink.ask('`awk` without a literal program');
    return;
  }
  const operands = args.slice(i + 1);
  const files = operands.filter((o) => !AWK_ASSIGNMENT.test(o));
  const unsafe = unsafeAwkProgram(program) ?? [...assignments, ...operands.filter((o) => AWK_ASSIGNMENT.test(o))].map(unsafeAwkAssignment).find((why) => why !== undefined);
  if (unsafe !== undefined) {
    ctx.sink.ask(`this awk program has ${unsafe}`);
    return;
  }
  const named = files.filter((f) => !isStandardInput(f));
  if (named.length === 0) ctx.sink.note('`awk` reads its standard input');
  else each(named, 'awk', ctx, (path) => ({ tool: 'fs.read', args: { path } }));
}

/** An operand awk takes for an assignment rather than a file (POSIX: a name, then `=`). */
const AWK_ASSIGNMENT = /^[A-Za-z_]\w*=/u;
