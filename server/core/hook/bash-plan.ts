import { spellsLongOption } from '../decide/options.js';
import { argvArithmetic } from './arithmetic.js';
import { parseOptions } from './argv-options.js';
import { fsAction, isStandardInput, joinPath, type Assignment, type CommandContext, type Sink } from './bash-context.js';
import type { TreeSearch } from './tree-search.js';
import { diffSearch, grepSearch, rgSearch, type GivenOption } from './tree-search-argv.js';
import { fileCommand, gitMove } from './bash-files.js';

/**
 * One simple command (argv after literal decoding) → ORACLE actions (SPEC §11). Wrappers are
 * unwrapped so the real program is judged; a few read-only commands become fs actions so an ordinary
 * session is not a wall of prompts; everything else is exec.run and the gate's grammar decides.
 * INVARIANT: nothing here allows anything: it only names what the gate must judge, or escalates.
 */
// One file on purpose (~400 lines): wrappers, readers and find share the same argv conventions.

export type { Assignment, CommandContext, OracleAction, OracleToolName, Sink } from './bash-context.js';

const MAX_WRAPPERS = 8;
const table = (names: readonly string[]): ReadonlySet<string> => new Set(names);

/** Escalating the user's privileges is never a hook decision. */
const PRIVILEGE = table(['sudo', 'doas', 'su', 'pkexec', 'run0', 'runuser']);
const SHELLS = table(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'busybox']);
/** Shells whose `-c` string is close enough to bash to be planned with the bash grammar. */
const POSIX_SHELLS = table(['bash', 'sh', 'dash', 'ksh', 'mksh', 'ash', 'zsh']);
/** Builtins that change the shell itself (aliases, functions, options, traps, variables, fds). */
const SHELL_STATE = table([
  'alias', 'unalias', 'set', 'shopt', 'trap', 'hash', 'enable', 'ulimit', 'umask', 'export', 'readonly', 'declare', 'typeset', 'local',
  'unset', 'read', 'mapfile', 'readarray', 'let', 'shift', 'getopts', 'pushd', 'popd', 'dirs', 'fc', 'history', 'bind', 'complete',
  'compgen', 'caller', 'wait', 'jobs', 'fg', 'bg', 'disown', 'suspend', 'coproc', 'function', 'select', 'logout',
]);
const NO_ACTION = table(['pwd', 'echo', 'true', 'false', ':', 'printf', 'test', 'exit', 'return']);
/** Standard program locations whose basename names the same program the gate pins. */
const STANDARD_BIN = /^\/(?:usr\/(?:local\/)?)?bin\/([A-Za-z0-9][A-Za-z0-9._+-]*)$/u;

/**
 * Variables that change what a program loads or runs, where it looks, or how the shell parses
 * (zsh's lower-case path arrays, NULLCMD and ZDOTDIR included); also what makes a program write or
 * read files the command does not name (NODE_V8_COVERAGE, NODE_REDIRECT_WARNINGS, MAKEFILES, MAGIC
 * for file(1), SSLKEYLOGFILE, TMP/TEMP for Python's tempfile), moves its configuration
 * (XDG_* holds git's; CURL_HOME, GNUPGHOME), or hands a build or test runner a program or plugin
 * (GOFLAGS -toolexec, RUSTC_WRAPPER, PYTEST_PLUGINS, CC and CGO_* for a cgo build, any CARGO_*
 * setting but the job count and terminal ones). less takes commands from LESS, LESSKEYIN and
 * LESSOPEN; ssh runs SSH_ASKPASS; glibc loads code from GCONV_PATH and locale data from LOCPATH
 * and NLSPATH, and reads HOSTALIASES. POSIXLY_CORRECT changes where GNU tools stop reading
 * options, so an operand the analysis read as an option would be a file. Case-insensitive: npm
 * reads npm_config_* in any case, and Windows programs read every name so.
 */
const RISKY_ENV = new RegExp(
  `^(?:${[
    // the shell's own parsing and start-up
    'PATH|cdpath|fpath|module_path|manpath|READNULLCMD|NULLCMD|ZDOTDIR|TMPPREFIX|STTY|HOME|ENV|BASH_ENV|IFS|PS4|GLOBIGNORE|SHELLOPTS|BASHOPTS|PROMPT_COMMAND|SHELL|BASH_FUNC_.*|POSIXLY_CORRECT',
    // the C library and the loader
    'LD_.*|DYLD_.*|GCONV_PATH|LOCPATH|NLSPATH|HOSTALIASES|RESOLV_HOST_CONF|GLIBC_TUNABLES',
    // language runtimes
    'NODE_OPTIONS|NODE_PATH|NODE_V8_COVERAGE|NODE_REDIRECT_WARNINGS|NODE_REPL_HISTORY|NODE_COMPILE_CACHE|NODE_ICU_DATA|NODE_EXTRA_CA_CERTS|NODE_TLS_REJECT_UNAUTHORIZED',
    'PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|CLASSPATH|PYTHON.*|PYTEST_.*|PYENV_.*|PIP_.*',
    // programs a program starts, and where programs read or write
    'EDITOR|VISUAL|PAGER|MANPAGER|BROWSER|LESS.*|MAGIC|TMPDIR|TMP|TEMP|XDG_.*|SSH_.*|SSLKEYLOGFILE|SSL_CERT_FILE|SSL_CERT_DIR|GNUPGHOME',
    // tools' own configuration
    'GIT_.*|NPM_CONFIG_.*|PREFIX|GREP_OPTIONS|RIPGREP_CONFIG_PATH|MAKEFILES|MFLAGS|CURL_HOME|OPENSSL_CONF|OPENSSL_MODULES|.*_PROXY',
    // builds: compilers, wrappers, Go's and Cargo's settings
    'CC|CXX|CPP|AR|LD|PKG_CONFIG|CFLAGS|CXXFLAGS|CPPFLAGS|LDFLAGS|CGO_.*',
    'GOFLAGS|GOENV|GOPATH|GOROOT|GOCACHE|GOMODCACHE|GOBIN|GOTMPDIR|GOPROXY|GONOPROXY|GOPRIVATE|GONOSUMDB|GOSUMDB|GOINSECURE|GOWORK|GOTOOLDIR|GOVCS|GOAUTH|GOCOVERDIR',
    'RUSTC|RUSTC_WRAPPER|RUSTC_WORKSPACE_WRAPPER|RUSTDOC|RUSTFMT|RUSTFLAGS|RUSTDOCFLAGS|RUSTUP_.*|CLIPPY_.*|CARGO|_*CARGO_(?!BUILD_JOBS$|TERM_).*',
  ].join('|')})$`,
  'iu',
);

/** A MAKEFLAGS word that only sets jobs, keeps going or quiets make: no `--eval`, `-f`, `-C`, `-I` or variable. */
const PLAIN_MAKEFLAG = /^(?:-[jklsw]*\d*|\d+|--jobs(?:=\d+)?|--keep-going|--silent|--no-print-directory|-O(?:line|target|recurse|none)?)$/u;
const plainMakeflags = (value: string): boolean => value.split(/\s+/u).every((word) => word === '' || PLAIN_MAKEFLAG.test(word));

export function checkAssignment(assignment: Assignment, sink: Sink): void {
  const { name, value } = assignment;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/u.test(name)) sink.ask(`unusual variable name \`${name}\``);
  else if (RISKY_ENV.test(name)) sink.ask(`setting \`${name}\` changes what programs load or run`);
  // make reads its options (`--eval=$(shell …)`, `-f FILE`) from these too.
  else if (/^(?:GNU)?MAKEFLAGS$/iu.test(name) && !plainMakeflags(value)) sink.ask(`\`${name}=${value}\` gives make options beyond jobs and quiet`);
  // A locale or language name with a `/` is a path: glibc loads locale data, gettext message catalogs from there.
  else if (/^(?:LANG|LANGUAGE|LC_[A-Z]+)$/u.test(name) && /[/\\]|\.\./u.test(value)) sink.ask(`\`${name}\` names a path, from which programs load locale data and messages`);
}

function execRun(program: string, args: readonly string[], ctx: CommandContext): void {
  for (const cwd of ctx.cwds) ctx.sink.action({ tool: 'exec.run', args: { program, args: [...args], cwd } });
}

/**
 * Evaluates `env… argv` and returns the directories a successful run leaves the shell in (only
 * `cd` changes them).
 */
export function evalSimple(argv: readonly string[], env: readonly Assignment[], ctx: CommandContext): readonly string[] {
  for (const assignment of env) checkAssignment(assignment, ctx.sink);
  return evalArgv(argv, ctx, 0);
}

function evalArgv(argv: readonly string[], ctx: CommandContext, wrapped: number): readonly string[] {
  const [first, ...args] = argv;
  const { sink } = ctx;
  if (first === undefined) return ctx.cwds;
  if (wrapped > MAX_WRAPPERS) {
    sink.ask('too many nested wrapper programs');
    return ctx.cwds;
  }
  let program = first;
  if (program.includes('/')) {
    const standard = STANDARD_BIN.exec(program)?.[1];
    if (standard === undefined) {
      sink.ask(`program given as a path \`${program}\`: the gate only runs programs by name`);
      return ctx.cwds;
    }
    sink.note(`\`${program}\` judged as \`${standard}\``);
    program = standard;
  }
  const inner = (rest: readonly string[]): readonly string[] => {
    if (rest.length === 0) execRun(program, args, ctx);
    else evalArgv(rest, ctx, wrapped + 1);
    return ctx.cwds;
  };
  // `builtin`, `command` and the `time` keyword run their command in this shell: a `cd` there moves it.
  const sameShell = (rest: readonly string[]): readonly string[] => (rest.length === 0 ? inner(rest) : evalArgv(rest, ctx, wrapped + 1));
  if (program === '' || /[\s\0]/u.test(program)) {
    sink.ask(`unusual program name \`${program}\``);
    return ctx.cwds;
  }
  if (PRIVILEGE.has(program)) {
    sink.deny(`\`${program}\` runs with other privileges`);
    return ctx.cwds;
  }
  if (SHELL_STATE.has(program)) {
    sink.ask(`\`${program}\` changes the shell's own state (aliases, functions, options or variables)`);
    return ctx.cwds;
  }
  if (NO_ACTION.has(program)) {
    const arithmetic = argvArithmetic(program, args);
    if (program === 'printf' && args.some((a) => a.startsWith('-v'))) sink.ask('`printf -v` assigns a shell variable');
    else if (arithmetic !== undefined) sink.ask(arithmetic);
    else sink.note(`\`${program}\` has no effect beyond its output`);
    return ctx.cwds;
  }
  switch (program) {
    case 'cd':
      return cd(args, ctx);
    case 'eval':
    case 'source':
    case '.':
      sink.ask(`\`${program}\` runs code the analysis cannot see`);
      return ctx.cwds;
    case 'env':
      return envWrapper(args, ctx, inner);
    case 'printenv': {
      const names = args.filter((a) => a !== '-0' && a !== '--null');
      if (names.some((n) => n.startsWith('-'))) sink.ask(`\`printenv ${args.join(' ')}\` is not analysed`);
      else printsEnvironment('`printenv`', names, sink);
      return ctx.cwds;
    }
    case 'nohup':
      return inner(args);
    case 'time':
      return sameShell(args[0] === '-p' ? args.slice(1) : args);
    case 'builtin':
      return sameShell(args);
    case 'command':
      if (args[0] === '-v' || args[0] === '-V') {
        sink.note('`command -v` only looks a name up');
        return ctx.cwds;
      }
      return sameShell(args[0] === '-p' ? args.slice(1) : args);
    case 'exec':
      if (args.length === 0 || (args[0]?.startsWith('-') ?? false)) {
        sink.ask('`exec` without a plain command changes the shell itself');
        return ctx.cwds;
      }
      return inner(args);
    case 'timeout':
      return unwrapOptions(args, { values: ['-s', '--signal', '-k', '--kill-after'], positional: 1 }, inner, ctx);
    case 'nice':
      return unwrapOptions(args, { values: ['-n', '--adjustment'], positional: 0 }, inner, ctx);
    case 'stdbuf':
      return unwrapOptions(args, { values: ['-i', '-o', '-e', '--input', '--output', '--error'], positional: 0 }, inner, ctx);
    case 'xargs':
      // xargs appends arguments read from stdin: the real argv is unknowable here.
      sink.ask('`xargs` runs a command with arguments the analysis cannot see');
      return unwrapOptions(args, { values: ['-a', '-d', '-E', '-e', '-I', '-i', '-L', '-l', '-n', '-P', '-s', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--replace', '--max-lines', '--max-chars'], positional: 0 }, (rest) => (rest.length === 0 ? ctx.cwds : inner(rest)), ctx);
    case 'find':
      return findCommand(args, ctx, (cmd) => evalArgv(cmd, ctx, wrapped + 1));
    default:
      break;
  }
  if (SHELLS.has(program)) return shell(program, args, ctx);
  if (program === 'git') return git(args, ctx, (argv, cwds) => evalArgv(argv, { ...ctx, cwds }, wrapped + 1));
  if (fileCommand(program, args, ctx) || readerCommand(program, args, ctx) || printOnly(program, args, ctx)) return ctx.cwds;
  execRun(program, args, ctx);
  return ctx.cwds;
}

function cd(args: readonly string[], ctx: CommandContext): readonly string[] {
  const rest = args.filter((a) => a !== '-P' && a !== '-L' && a !== '--');
  const target = rest[0];
  if (rest.length !== 1 || target === undefined || target === '-' || target.startsWith('-') || target === '') {
    ctx.sink.ask('`cd` without exactly one literal directory');
    return ctx.cwds;
  }
  if (/^\+\d+$/u.test(target)) {
    // zsh reads `cd +N` as an entry of its directory stack, which the hook cannot see.
    ctx.sink.ask(`\`cd ${target}\` is a directory-stack entry in zsh`);
    return ctx.cwds;
  }
  ctx.sink.note(`working directory becomes \`${target}\``);
  return [...new Set(ctx.cwds.map((cwd) => joinPath(cwd, target)))];
}

function envWrapper(args: readonly string[], ctx: CommandContext, inner: (rest: readonly string[]) => readonly string[]): readonly string[] {
  let i = 0;
  let cleared = false;
  for (; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      i++;
      break;
    }
    if (arg === '-i' || arg === '--ignore-environment') cleared = true;
    if (arg === '-i' || arg === '--ignore-environment' || arg === '-0' || arg === '--null') continue;
    if (arg === '-u' || arg === '--unset') {
      i++;
      continue;
    }
    if (arg.startsWith('-')) {
      // -C/--chdir moves the program, -S splits a string into argv: neither is followed here.
      ctx.sink.ask(`\`env ${arg}\` is not analysed`);
      return ctx.cwds;
    }
    break;
  }
  for (; i < args.length; i++) {
    const arg = args[i] ?? '';
    const eq = arg.indexOf('=');
    if (eq <= 0) break;
    checkAssignment({ name: arg.slice(0, eq), value: arg.slice(eq + 1) }, ctx.sink);
  }
  const rest = args.slice(i);
  if (rest.length === 0) {
    if (cleared) ctx.sink.note('`env -i` without a program prints only what it sets');
    else printsEnvironment('`env` without a program', [], ctx.sink);
    return ctx.cwds;
  }
  return inner(rest);
}

/**
 * Variables whose value is never a credential: printing them is like `pwd`. Every other name,
 * and the whole environment, may hold one (GITHUB_TOKEN, an API key, Claude Code's own session
 * token) that the command's output would hand to the model: a person decides, as for `echo $X`
 * (red team, session 36: `printenv` and `env` were allowed as "only prints").
 */
const PLAIN_VARIABLES = new Set(['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'PWD', 'OLDPWD', 'LANG', 'LANGUAGE', 'TERM', 'TZ', 'HOSTNAME', 'NODE_ENV', 'EDITOR', 'VISUAL', 'PAGER', 'TMPDIR', 'CI', 'SHLVL', 'COLUMNS', 'LINES']);

function printsEnvironment(what: string, names: readonly string[], sink: Sink): void {
  const secretive = names.filter((n) => !PLAIN_VARIABLES.has(n) && !/^LC_[A-Z]+$/u.test(n));
  if (names.length > 0 && secretive.length === 0) sink.note(`${what} prints ${names.map((n) => `\`${n}\``).join(', ')}, which hold no credentials`);
  else sink.ask(`${what} prints ${names.length === 0 ? 'the whole environment' : secretive.map((n) => `\`${n}\``).join(', ')}, which can hold credentials (tokens, API keys) the model would see`);
}

interface WrapperOptions {
  /** Options that take a value (`-n 5`, `-n5`, `--adjustment=5`). */
  readonly values: readonly string[];
  /** Positional arguments of the wrapper before the wrapped program (timeout's DURATION). */
  readonly positional: number;
}

function unwrapOptions(args: readonly string[], options: WrapperOptions, inner: (rest: readonly string[]) => readonly string[], ctx: CommandContext): readonly string[] {
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      i++;
      break;
    }
    if (!arg.startsWith('-') || arg === '-') break;
    if (/^-\d+$/u.test(arg)) continue; // nice -5
    const takesNext = options.values.includes(arg);
    const attached = options.values.some((v) => (v.startsWith('--') ? arg.startsWith(`${v}=`) : arg.startsWith(v) && arg.length > v.length));
    if (takesNext) i++;
    else if (!attached && !/^-[A-Za-z]+$|^--[a-z-]+$/u.test(arg)) {
      ctx.sink.ask(`wrapper option \`${arg}\` is not understood`);
      return ctx.cwds;
    }
  }
  const rest = args.slice(i + options.positional);
  if (rest.length === 0) {
    ctx.sink.ask('wrapper without a program to run');
    return ctx.cwds;
  }
  return inner(rest);
}

/** Named shell options that change neither what a script names nor where it runs. */
const QUIET_OPTIONS = table(['pipefail', 'errexit', 'nounset', 'xtrace', 'verbose', 'noclobber']);

function shell(program: string, args: readonly string[], ctx: CommandContext): readonly string[] {
  let i = 0;
  let command = false;
  for (; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '-o' || arg === '+o' || arg === '-O' || arg === '+O') {
      // cdable_vars, lastpipe, extglob, nocaseglob, …: named options change how the script reads.
      if (QUIET_OPTIONS.has(args[i + 1] ?? '')) {
        i++;
        continue;
      }
      ctx.sink.ask(`\`${program} ${arg} ${args[i + 1] ?? ''}\` sets a shell option the analysis does not follow`);
      return ctx.cwds;
    }
    if (!/^[-+][A-Za-z]+$/u.test(arg)) break;
    if (arg.startsWith('-') && arg.includes('c')) command = true;
  }
  const source = args[i];
  if (!command || source === undefined || !POSIX_SHELLS.has(program)) {
    ctx.sink.ask(`\`${program}\` runs a script the analysis cannot see`);
    return ctx.cwds;
  }
  if (args.length > i + 1) ctx.sink.note(`\`${program} -c\` positional parameters are only reachable through \`$\``);
  if (ctx.script === undefined) {
    ctx.sink.ask(`\`${program} -c\` needs the bash parser`);
    return ctx.cwds;
  }
  ctx.sink.note(`\`${program} -c\` script analysed as bash`);
  ctx.script(source, ctx.cwds);
  return ctx.cwds;
}

interface Reader {
  readonly tool: 'fs.read' | 'fs.list';
  /** With no path argument the command lists the working directory (otherwise it reads stdin). */
  readonly dot: boolean;
  /** Options whose value is not a path. Over-listing would hide a path, so only sure ones. */
  readonly values: readonly string[];
  /** Options that write, run programs or read a list of files: not mapped, escalated. */
  readonly unsafe: readonly string[];
  /** grep family: the first operand is the pattern unless -e/-f gave one. */
  readonly pattern?: boolean;
  /** The operand at this index is the file it writes (`uniq IN OUT`). */
  readonly output?: number;
  /** Long options taking no value (or one only after `=`) whose names begin a value option's (`du --time`). */
  readonly flags?: readonly string[];
  /** Options that give the pattern, so that the first operand is a path too (grep's `-e`); these by default. */
  readonly patternOptions?: readonly string[];
  /** Why the pattern itself reaches beyond the operands, if it does. */
  readonly unsafePattern?: (pattern: string) => string | undefined;
  /** Options that, given alone, are answered while the program reads its options: it only prints. */
  readonly printsAlone?: readonly string[];
}

const GREP: Reader = { tool: 'fs.read', dot: true, pattern: true, values: ['-e', '--regexp', '-m', '--max-count', '-A', '-B', '-C', '--after-context', '--before-context', '--context', '-d', '--directories', '-D', '--devices', '--include', '--exclude', '--exclude-dir', '--label', '--binary-files', '--group-separator'], unsafe: ['-f', '--file', '--exclude-from'] };

const READERS: Readonly<Record<string, Reader>> = Object.assign(Object.create(null) as Record<string, Reader>, {
  ls: { tool: 'fs.list', dot: true, values: ['-I', '-w', '-T', '--ignore', '--hide', '--format', '--sort', '--time', '--time-style', '--width', '--tabsize', '--block-size', '--quoting-style', '--indicator-style'], unsafe: [] },
  tree: { tool: 'fs.list', dot: true, values: ['-L', '-P', '-I', '--charset', '--filelimit', '--sort', '-T'], unsafe: ['-o', '--fromfile', '-R'] },
  du: { tool: 'fs.list', dot: true, values: ['-d', '--max-depth', '-B', '--block-size', '-t', '--threshold', '--exclude', '--time-style'], unsafe: ['-X', '--exclude-from', '--files0-from'], flags: ['--time'] },
  cat: { tool: 'fs.read', dot: false, values: [], unsafe: [] },
  // -o writes its output to a file, -T and --compress-program reach outside: escalated.
  // --random-source reads a file whose bytes decide the order, which tells a guess at them apart.
  sort: { tool: 'fs.read', dot: false, values: ['-k', '--key', '-t', '--field-separator', '-S', '--buffer-size', '--parallel', '--batch-size', '--sort'], unsafe: ['-o', '--output', '-T', '--temporary-directory', '--compress-program', '--files0-from', '--random-source'] },
  cut: { tool: 'fs.read', dot: false, values: ['-d', '--delimiter', '-f', '--fields', '-b', '--bytes', '-c', '--characters', '--output-delimiter'], unsafe: [] },
  diff: { tool: 'fs.read', dot: false, values: ['-U', '-C', '-x', '--exclude', '-I', '--ignore-matching-lines', '--label', '-W', '--width', '--horizon-lines', '-F', '--show-function-line', '--palette', '--tabsize'], unsafe: ['-X', '--exclude-from', '--from-file', '--to-file', '-S', '--starting-file'] },
  cmp: { tool: 'fs.read', dot: false, values: ['-i', '--ignore-initial', '-n', '--bytes'], unsafe: [] },
  comm: { tool: 'fs.read', dot: false, values: ['--output-delimiter'], unsafe: [] },
  nl: { tool: 'fs.read', dot: false, values: ['-b', '-d', '-f', '-h', '-i', '-l', '-n', '-s', '-v', '-w'], unsafe: [] },
  tac: { tool: 'fs.read', dot: false, values: ['-s', '--separator'], unsafe: [] },
  rev: { tool: 'fs.read', dot: false, values: [], unsafe: [] },
  uniq: { tool: 'fs.read', dot: false, values: ['-f', '--skip-fields', '-s', '--skip-chars', '-w', '--check-chars'], unsafe: [], output: 1 },
  paste: { tool: 'fs.read', dot: false, values: ['-d', '--delimiters'], unsafe: [] },
  fold: { tool: 'fs.read', dot: false, values: ['-w', '--width'], unsafe: [] },
  // util-linux column: -t, -d, -e, -J, -L and -x take no value.
  column: {
    tool: 'fs.read',
    dot: false,
    values: ['-s', '--separator', '-c', '--output-width', '-o', '--output-separator', '-n', '--table-name', '-O', '--table-order', '-N', '--table-columns', '-l', '--table-columns-limit', '-E', '--table-noextreme', '-H', '--table-hide', '-R', '--table-right', '-T', '--table-truncate', '-W', '--table-wrap', '-r', '--tree', '-i', '--tree-id', '-p', '--tree-parent'],
    unsafe: [],
  },
  // Byte dumps. od's -w and --strings and hexdump's -L take a value only when attached: not listed,
  // so a following word stays a path. Not xxd: it reads each argument as one option by its first
  // letter (`-ps` is -p, not -p and -s), which this reading of clusters would get wrong.
  od: { tool: 'fs.read', dot: false, values: ['-A', '-j', '-N', '-S', '-t', '--address-radix', '--skip-bytes', '--read-bytes', '--format', '--endian'], unsafe: [], flags: ['--strings', '--width', '--traditional', '--output-duplicates'] },
  hexdump: { tool: 'fs.read', dot: false, values: ['-e', '-n', '-s', '--format', '--length', '--skip'], unsafe: ['-f', '--format-file'], flags: ['--color', '--one-byte-octal', '--one-byte-char', '--canonical', '--two-bytes-decimal', '--two-bytes-octal', '--two-bytes-hex', '--no-squeezing'] },
  hd: { tool: 'fs.read', dot: false, values: ['-e', '-n', '-s', '--format', '--length', '--skip'], unsafe: ['-f', '--format-file'], flags: ['--color', '--one-byte-octal', '--one-byte-char', '--canonical', '--two-bytes-decimal', '--two-bytes-octal', '--two-bytes-hex', '--no-squeezing'] },
  sha256sum: { tool: 'fs.read', dot: false, values: [], unsafe: ['-c', '--check'] },
  sha1sum: { tool: 'fs.read', dot: false, values: [], unsafe: ['-c', '--check'] },
  md5sum: { tool: 'fs.read', dot: false, values: [], unsafe: ['-c', '--check'] },
  head: { tool: 'fs.read', dot: false, values: ['-n', '-c', '--lines', '--bytes'], unsafe: [] },
  tail: { tool: 'fs.read', dot: false, values: ['-n', '-c', '--lines', '--bytes', '-s', '--sleep-interval', '--pid', '--max-unchanged-stats'], unsafe: [] },
  wc: { tool: 'fs.read', dot: false, values: [], unsafe: ['--files0-from'] },
  less: { tool: 'fs.read', dot: false, values: [], unsafe: ['-'] },
  more: { tool: 'fs.read', dot: false, values: [], unsafe: ['-'] },
  file: { tool: 'fs.read', dot: false, values: ['-e', '-F', '-P', '--exclude', '--separator', '--parameter'], unsafe: ['-f', '--files-from', '-m', '--magic-file', '-C', '--compile'] },
  stat: { tool: 'fs.read', dot: false, values: ['-c', '--format', '--printf'], unsafe: [] },
  // egrep and fgrep are grep -E and grep -F: the same options.
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  // jq reads its files and prints; it writes nothing and runs nothing. Its filter comes first
  // (`-e` is --exit-status). Modules and data files (`import`, `include`, -L), files bound to
  // variables, options with two values and `--run-tests FILE` (which prints FILE's lines) are not
  // followed.
  jq: {
    tool: 'fs.read',
    dot: false,
    pattern: true,
    patternOptions: [],
    values: ['--indent'],
    unsafe: ['-f', '--from-file', '-L', '--library-path', '--arg', '--argjson', '--argfile', '--slurpfile', '--rawfile', '--args', '--jsonargs', '--run-tests'],
    // jq takes long options only in full: `--slurp` is not `--slurpfile`.
    flags: ['--slurp', '--raw-output', '--raw-input', '--raw-output0', '--ascii-output', '--join-output', '--sort-keys', '--null-input', '--exit-status', '--compact-output', '--tab', '--seq', '--stream', '--color-output', '--monochrome-output'],
    unsafePattern: (filter: string) =>
      /\b(?:import|include|modulemeta)\b/u.test(filter)
        ? 'a jq filter with `import`, `include` or `modulemeta` reads modules and data files from its search path'
        : // `env` and `$ENV` are the environment, which can hold credentials (review, session 36).
          // jq 1.6 also reads `$ ENV` and `$#…⏎ENV` (red team, session 37): any word ENV counts.
          /(?<![.\w$])env\b|\bENV\b/u.test(filter)
          ? 'a jq filter with `env` or `$ENV` prints the environment, which can hold credentials (tokens, API keys) the model would see'
          : undefined,
    // answered before jq loads ~/.jq or any file
    printsAlone: ['--version', '--help', '-h'],
  },
  rg: {
    tool: 'fs.read',
    dot: true,
    pattern: true,
    values: ['-e', '--regexp', '-g', '--glob', '--iglob', '-t', '--type', '-T', '--type-not', '-m', '--max-count', '-A', '-B', '-C', '--after-context', '--before-context', '--context', '-d', '--max-depth', '-M', '--max-columns', '-j', '--threads', '-E', '--encoding', '-r', '--replace', '--sort', '--sortr', '--max-filesize', '--color', '--colors', '--type-add', '--context-separator', '--field-match-separator'],
    // --hostname-bin (rg 14) runs a program to learn the host name.
    unsafe: ['--pre', '--pre-glob', '-f', '--file', '--ignore-file', '--engine', '--hostname-bin'],
  },
});

const PATTERN_OPTIONS: readonly string[] = ['-e', '--regexp'];

/** Maps a read-only command to fs actions; false when the command is not one of them. */
function readerCommand(program: string, args: readonly string[], ctx: CommandContext): boolean {
  const reader = READERS[program];
  if (reader === undefined) return false;
  if (args.length === 1 && reader.printsAlone?.includes(args[0] ?? '') === true) {
    ctx.sink.note(`\`${program} ${args[0] ?? ''}\` only prints`);
    return true;
  }
  const operands: string[] = [];
  const given: GivenOption[] = [];
  let patternGiven = false;
  const patternOptions = reader.patternOptions ?? PATTERN_OPTIONS;
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (!options || arg === '-' || !arg.startsWith('-')) {
      // less and more run `+CMD` as a command of theirs (`+!cmd` a shell command, on a terminal).
      if ((program === 'less' || program === 'more') && arg.startsWith('+')) {
        ctx.sink.ask(`\`${program} ${arg}\` gives ${program} a command to run`);
        return true;
      }
      operands.push(arg);
      continue;
    }
    if (arg === '--') {
      options = false;
      continue;
    }
    const name = arg.startsWith('--') ? arg.split('=')[0] ?? arg : arg.slice(0, 2);
    // GNU getopt takes any unique prefix of a long option (`--files0=` is `--files0-from=`), but
    // an option spelled in full is that option (`--exclude` is not `--exclude-from`).
    const unsafe = reader.unsafe.includes(name) || (!reader.values.includes(name) && !(reader.flags ?? []).includes(name) && reader.unsafe.some((u) => spellsLongOption(arg, u)));
    if (unsafe || program === 'less' || program === 'more') {
      ctx.sink.ask(`\`${program} ${name}\` is not a plain read`);
      return true;
    }
    if (patternOptions.includes(name)) patternGiven = true;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      // An abbreviation of an option that takes a value takes the next argument, which may be a
      // path: unless written in full, ORACLE cannot tell which argument is what.
      const abbreviates = eq < 0 && name.length >= 3 && !reader.values.includes(name) && !(reader.flags ?? []).includes(name) ? reader.values.find((v) => v.startsWith(name)) : undefined;
      if (abbreviates !== undefined) {
        ctx.sink.ask(`\`${program} ${name}\` may be \`${abbreviates}\`, which takes a value: write the option in full`);
        return true;
      }
      if (eq >= 0) given.push({ name, value: arg.slice(eq + 1) });
      else if (reader.values.includes(arg)) given.push({ name, value: args[++i] ?? '' });
      else given.push({ name });
      continue;
    }
    // A short cluster: the first value-taking letter consumes the rest, or the next argument.
    for (let j = 1; j < arg.length; j++) {
      const letter = `-${arg.charAt(j)}`;
      if (reader.unsafe.includes(letter)) {
        ctx.sink.ask(`\`${program} ${letter}\` is not a plain read`);
        return true;
      }
      if (patternOptions.includes(letter)) patternGiven = true;
      if (reader.values.includes(letter)) {
        given.push({ name: letter, value: j === arg.length - 1 ? (args[++i] ?? '') : arg.slice(j + 1) });
        break;
      }
      given.push({ name: letter });
    }
  }
  const paths = reader.pattern === true && !patternGiven ? operands.slice(1) : operands;
  if (reader.pattern === true && !patternGiven && operands.length === 0) {
    ctx.sink.ask(`\`${program}\` without a pattern`);
    return true;
  }
  const unsafePattern = reader.pattern === true && !patternGiven ? reader.unsafePattern?.(operands[0] ?? '') : undefined;
  if (unsafePattern !== undefined) {
    ctx.sink.ask(unsafePattern);
    return true;
  }
  const named = paths.filter((p) => !isStandardInput(p));
  // A glob's paths take its place only where every operand is a file read alike: not diff's two
  // sides, nor uniq's output (bash-actions.ts asks about a glob nobody took).
  const uniform = reader.output === undefined && !PAIRED.has(program);
  const real = named.flatMap((p) => (uniform ? ctx.globs?.take(p) : undefined) ?? [p]);
  // A search of trees reads every file it reaches below a folder it is given (or the working
  // directory, when it is given none): the gate weighs what it reaches (tree-search.ts).
  const search = searchOf(program, given);
  if (search !== undefined) {
    // grep -r and rg search the working directory when given no path; diff compares only what it is given.
    for (const path of real.length === 0 && program !== 'diff' ? ['.'] : real) fsAction('fs.read', path, ctx, search);
    return true;
  }
  if (real.length === 0) {
    if (reader.dot) fsAction('fs.list', '.', ctx);
    else ctx.sink.note(`\`${program}\` reads its standard input`);
    return true;
  }
  real.forEach((path, index) => {
    fsAction(index === reader.output ? 'fs.write' : reader.tool, path, ctx);
  });
  return true;
}

/** Readers whose operands are two sides, each with its own role. */
const PAIRED = table(['diff', 'cmp', 'comm']);

function searchOf(program: string, given: readonly GivenOption[]): TreeSearch | undefined {
  if (program === 'rg') return rgSearch(given);
  if (program === 'grep' || program === 'egrep' || program === 'fgrep') return grepSearch(given);
  if (program === 'diff') return diffSearch(given);
  return undefined;
}

const FIND_EXEC = table(['-exec', '-execdir', '-ok', '-okdir']);
const FIND_UNSAFE = table(['-delete', '-fprint', '-fprint0', '-fprintf', '-fls', '-files0-from']);

/** `find PATHS… EXPR`: lists its starting points; -exec runs a command per file, -delete deletes. */
function findCommand(args: readonly string[], ctx: CommandContext, run: (argv: readonly string[]) => void): readonly string[] {
  let i = 0;
  while (i < args.length && /^-[HLP]$|^-O\d$/u.test(args[i] ?? '')) i++;
  if (args[i] === '-D') i += 2;
  const starts: string[] = [];
  for (; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg.startsWith('-') || arg === '(' || arg === '!') break;
    starts.push(arg);
  }
  let escalated = false;
  for (; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (FIND_UNSAFE.has(arg)) {
      ctx.sink.ask(`\`find ${arg}\` ${arg === '-delete' ? 'deletes files' : 'writes a file'}`);
      escalated = true;
    } else if (FIND_EXEC.has(arg)) {
      let end = i + 1;
      while (end < args.length && args[end] !== ';' && args[end] !== '+') end++;
      const inner = args.slice(i + 1, end);
      // The inner command is judged too (a denied program stays denied), but it runs once per
      // file found, with names the analysis cannot see.
      ctx.sink.ask(`\`find ${arg}\` runs \`${inner.join(' ')}\` on every file found`);
      if (inner.length > 0) run(inner);
      escalated = true;
      i = end;
    }
  }
  if (!escalated) for (const start of starts.length === 0 ? ['.'] : starts) fsAction('fs.list', start, ctx);
  return ctx.cwds;
}

/** Commands that only print what they compute from their arguments or the system, never a file. */
const PRINT_ONLY = table(['which', 'type', 'basename', 'dirname', 'realpath', 'readlink', 'tr', 'uname', 'whoami', 'id', 'nproc', 'arch', 'seq', 'yes', 'sleep', 'tty', 'groups', 'expr']);

function printOnly(program: string, args: readonly string[], ctx: CommandContext): boolean {
  if (program === 'date') return dateCommand(args, ctx);
  if (program === 'hostname') {
    // `date -s` sets the clock and `hostname NAME` renames the machine: not printing.
    if (args.some((a) => !a.startsWith('-') || a === '-F' || a.startsWith('--file'))) {
      ctx.sink.ask(`\`${program} ${args.join(' ')}\` changes the system`);
      return true;
    }
  } else if (!PRINT_ONLY.has(program)) return false;
  ctx.sink.note(`\`${program}\` only prints`);
  return true;
}

/**
 * GNU date prints, but `-f FILE` prints each line of FILE it cannot read as a date, in its error
 * (`date -f ~/.ssh/id_rsa` printed the key: corpus probe, session 37), and `-r FILE` its time: both
 * are reads of FILE, judged as such. `-s` sets the clock. An option ORACLE does not know asks.
 */
function dateCommand(args: readonly string[], ctx: CommandContext): boolean {
  const parsed = parseOptions(args, { flags: 'Ru', values: 'dfrs', optional: 'I', long: ['utc', 'universal', 'rfc-email', 'rfc-2822', 'debug', 'help', 'version', 'resolution'], longValues: ['date', 'file', 'reference', 'set', 'rfc-3339'], longOptional: ['iso-8601'] });
  if (!parsed.ok) {
    ctx.sink.ask(`\`date ${parsed.option}\` is an option ORACLE does not follow`);
    return true;
  }
  const { options } = parsed.value;
  if (options.has('s') || options.has('set')) {
    ctx.sink.ask(`\`date ${args.join(' ')}\` changes the system`);
    return true;
  }
  const files = ['f', 'file', 'r', 'reference'].flatMap((name) => options.get(name) ?? []).filter((v): v is string => typeof v === 'string');
  for (const file of files) if (!isStandardInput(file)) fsAction('fs.read', file, ctx);
  if (files.length === 0) ctx.sink.note('`date` only prints');
  return true;
}

/**
 * git's own options before the subcommand: `-C DIR` is the same git in DIR (so the gate judges it
 * there, with every rule that applies), `--no-pager`/`-P` only stop paging, and `--version` or
 * `--help` alone print. Every other option stays on the argv, where the gate's git rules refuse it.
 */
function git(args: readonly string[], ctx: CommandContext, run: (argv: readonly string[], cwds: readonly string[]) => readonly string[]): readonly string[] {
  let cwds = ctx.cwds;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--no-pager' || arg === '-P') continue;
    if (arg !== '-C') break;
    const dir = args[i + 1];
    if (dir === undefined || dir === '') {
      ctx.sink.ask('`git -C` without a directory');
      return ctx.cwds;
    }
    cwds = [...new Set(cwds.map((cwd) => joinPath(cwd, dir)))];
    i++;
  }
  const rest = args.slice(i);
  if (rest.length === 1 && ['--version', '--help', '-h', 'version', 'help'].includes(rest[0] ?? '')) {
    ctx.sink.note('`git --version` and `git help` only print');
    return ctx.cwds;
  }
  if (i !== 0) run(['git', ...rest], cwds);
  else {
    // git first: the moves are what it does, not something made before it starts (same-line.ts).
    execRun('git', rest, ctx);
    if (rest[0] === 'mv') gitMove(rest.slice(1), ctx);
  }
  return ctx.cwds;
}
