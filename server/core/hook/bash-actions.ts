/**
 * Plans a parsed Bash command string as ORACLE actions (SPEC §11, Claude Code hook). Every simple
 * command anywhere in the tree is evaluated; anything the analysis cannot fully account for is
 * escalated (`ask`) or denied, never allowed. The hook sends each action to the gate and the
 * strictest decision wins.
 */
import { assignedWord, descendants, fieldChildren, literalWord, namedChildren, shellWord, type BashNode, type BashTree, type CclWord, type GlobWord, type ParseBashSync } from './bash-ast.js';
import { fsAction, globToken, type Assignment, type CommandContext, type OracleAction, type Sink } from './bash-context.js';
import { evalSimple, checkAssignment } from './bash-plan.js';
import { arithmeticOperator, operatorRisk, subscriptCode } from './arithmetic.js';
import { expandGlob, type ReadDir } from './glob-expand.js';
import { judgedTooEarly } from './same-line.js';

type Argument = string | GlobWord | CclWord;

export type { OracleAction } from './bash-context.js';

export type BashVerdict =
  | { readonly kind: 'actions'; readonly actions: readonly OracleAction[]; readonly notes: readonly string[] }
  | { readonly kind: 'ask'; readonly reason: string }
  | { readonly kind: 'deny'; readonly reason: string };

export interface BashPlanOptions {
  readonly cwd: string;
  /** Resolves `~` and `~/…`; without it a tilde is escalated. */
  readonly home?: string;
  /** Re-parses literal `bash -c STRING` scripts; without it they are escalated. */
  readonly parse?: ParseBashSync;
  /** Lists folders for glob arguments (adapters/glob-reader.ts); without it a glob is escalated. */
  readonly readDir?: ReadDir;
}

/** Nested `bash -c` levels and possible working directories before giving up. */
const MAX_SCRIPT_DEPTH = 4;
const MAX_CWDS = 4;
/** Readings of one command: its globs that may match nothing (each written as it is, or dropped), its BRACE_CCL words. */
const MAX_READINGS = 8;
/** zsh reads `<N-M>` as a numeric glob (also as a redirection's target); bash as redirections. */
const ZSH_NUMERIC_GLOB = /<[0-9]*-[0-9]*>/u;
/** Nodes that run something; each must be reached by the walk (checked after it). */
const COMMAND_NODES = new Set(['command', 'declaration_command', 'unset_command', 'test_command', 'function_definition', 'variable_assignment', 'variable_assignments']);
const CONTROL = new Set(['if_statement', 'while_statement', 'for_statement', 'case_statement']);
const CONTAINERS = new Set(['do_group', 'else_clause', 'elif_clause', 'case_item']);
const SAFE_DEVICES = /^\/dev\/(?:null|stdin|stdout|stderr|fd\/\d+)$/u;

interface Outcome {
  /** Working directories after success, and after any outcome. */
  readonly ok: readonly string[];
  readonly any: readonly string[];
}

interface Collector extends Sink {
  /** Globs matched against the folders, and commands (a loop counts twice) anywhere in the line. */
  readonly globbed: string[];
  commands: number;
  readonly actions: OracleAction[];
  readonly notes: string[];
  readonly asks: string[];
  readonly denies: string[];
}

function collector(): Collector {
  const actions: OracleAction[] = [];
  const seen = new Set<string>();
  const notes: string[] = [];
  const asks: string[] = [];
  const denies: string[] = [];
  const once = (list: string[], text: string): void => {
    if (!list.includes(text)) list.push(text);
  };
  return {
    globbed: [],
    commands: 0,
    actions,
    notes,
    asks,
    denies,
    action: (a) => {
      const key = JSON.stringify(a);
      if (seen.has(key)) return;
      seen.add(key);
      actions.push(a);
    },
    note: (n) => {
      once(notes, n);
    },
    ask: (r) => {
      once(asks, r);
    },
    deny: (r) => {
      once(denies, r);
    },
  };
}

const union = (...sets: (readonly string[])[]): readonly string[] => [...new Set(sets.flat())];

/** The first child from `from` on that is not a comment, found without copying the rest (a line may hold thousands). */
function nextPart(children: readonly BashNode[], from: number): BashNode | undefined {
  for (let i = from; i < children.length; i++) {
    const child = children[i];
    if (child !== undefined && (!child.named || child.type !== 'comment')) return child;
  }
  return undefined;
}

export function bashVerdict(tree: BashTree, options: BashPlanOptions): BashVerdict {
  const sink = collector();
  new Planner(sink, options, 0).script(tree, [options.cwd]);
  // A shell matches a command's globs when it reaches that command: files an earlier or parallel
  // command of the same line creates (`touch ./--files0-from=L && sort -*`) are not in the folders
  // read here. Only a line that changes nothing, or one command alone, has its globs judged.
  const changes = sink.actions.find((a) => a.tool !== 'fs.read');
  if (sink.globbed.length > 0 && sink.commands > 1 && changes !== undefined) {
    sink.ask(`glob \`${sink.globbed[0] ?? ''}\` is matched when its command runs, after other commands of this line may have changed the folders (${changes.tool}): run it on its own`);
  }
  // A part judged against folders an earlier part of the same line changes.
  const early = sink.denies.length === 0 ? judgedTooEarly(sink.actions) : undefined;
  if (early !== undefined) sink.ask(early);
  // Deny beats ask beats actions: the strictest finding decides (SPEC §11).
  if (sink.denies.length > 0) return { kind: 'deny', reason: sink.denies.join('; ') };
  if (sink.asks.length > 0) return { kind: 'ask', reason: sink.asks.join('; ') };
  return { kind: 'actions', actions: untrustIgnores(sink.actions), notes: sink.notes };
}

class Planner {
  private readonly visited = new Set<BashNode>();

  constructor(
    private readonly sink: Collector,
    private readonly options: BashPlanOptions,
    private readonly depth: number,
  ) {}

  script(tree: BashTree, cwds: readonly string[]): void {
    if (tree.hasError) this.sink.ask('the command does not parse cleanly as bash');
    // tree-sitter splits `r\<newline>m` into two words where bash joins them into `rm`.
    if (/[^\s\\]\\\r?\n/u.test(tree.source)) this.sink.ask('line continuation inside a word');
    if (ZSH_NUMERIC_GLOB.test(tree.source)) this.sink.ask(`zsh reads \`${ZSH_NUMERIC_GLOB.exec(tree.source)?.[0] ?? ''}\` as a glob matching numbered files, bash as redirections`);
    this.sequence(tree.root.children, cwds);
    // INVARIANT: a command the walk did not reach is judged anyway and escalated.
    for (const node of descendants(tree.root)) {
      if (!COMMAND_NODES.has(node.type) || this.visited.has(node)) continue;
      this.sink.ask(`\`${node.text.slice(0, 80)}\` is inside a construct the analysis does not follow`);
      this.statement(node, cwds);
    }
  }

  private sequence(children: readonly BashNode[], start: readonly string[]): Outcome {
    let cwds = start;
    let last: Outcome = { ok: start, any: start };
    children.forEach((child, index) => {
      if (!child.named || child.type === 'comment') return;
      const outcome = this.statement(child, cwds);
      // `cmd &` runs in a background subshell: its `cd` does not reach the next command.
      const background = nextPart(children, index + 1)?.type === '&';
      last = background ? { ok: cwds, any: cwds } : outcome;
      cwds = last.any;
    });
    return last;
  }

  private subshell(children: readonly BashNode[], cwds: readonly string[]): Outcome {
    this.sequence(children, cwds);
    return { ok: cwds, any: cwds };
  }

  private statement(node: BashNode, cwds: readonly string[]): Outcome {
    this.visited.add(node);
    if (cwds.length > MAX_CWDS) {
      this.sink.ask('too many possible working directories after `cd`');
      return { ok: cwds, any: cwds };
    }
    const same = { ok: cwds, any: cwds };
    switch (node.type) {
      case 'command':
        return this.command(node, cwds);
      case 'redirected_statement': {
        const body = fieldChildren(node, 'body')[0];
        const redirects = node.children.filter((c) => c.named && c.field !== 'body');
        // tree-sitter reads `cd ~ && echo x > f` as the list redirected; bash binds the
        // redirection to the list's last command, so `f` is opened after the `cd`.
        if (body?.type === 'list') {
          this.visited.add(body);
          return this.list(body, cwds, redirects);
        }
        for (const redirect of redirects) this.redirect(redirect, cwds);
        return body === undefined ? same : this.statement(body, cwds);
      }
      case 'list':
        return this.list(node, cwds, []);
      case 'pipeline': {
        // bash runs each stage in a subshell, but zsh (and bash with lastpipe) runs the last one in
        // this shell: a `cd` there may or may not move it, so both folders are judged after it.
        let last: Outcome = same;
        for (const stage of namedChildren(node)) last = this.statement(stage, cwds);
        return { ok: union(cwds, last.ok), any: union(cwds, last.any) };
      }
      case 'subshell':
        return this.subshell(node.children, cwds);
      case 'compound_statement':
        return this.sequence(node.children, cwds);
      case 'negated_command': {
        const inner = namedChildren(node)[0];
        const outcome = inner === undefined ? same : this.statement(inner, cwds);
        return { ok: outcome.any, any: outcome.any };
      }
      case 'variable_assignment':
      case 'variable_assignments':
        for (const a of node.type === 'variable_assignment' ? [node] : namedChildren(node)) this.assignment(a, cwds);
        return same;
      case 'declaration_command':
        this.sink.ask(`\`${node.text.slice(0, 80)}\` changes shell variables`);
        for (const a of namedChildren(node)) if (a.type === 'variable_assignment') this.assignment(a, cwds);
        return same;
      case 'unset_command':
        this.sink.ask('`unset` changes shell variables');
        return same;
      case 'function_definition':
        this.sink.ask('defining a shell function hides what a later name runs');
        return same;
      case 'test_command':
        this.dynamic(node, cwds, 'test');
        this.testArithmetic(node);
        this.sink.note('test expression has no effect');
        return same;
      default:
        if (CONTROL.has(node.type)) return this.control(node, cwds);
        return this.unknown(node, cwds);
    }
  }

  /**
   * `left && right` or `left || right`; `redirects` belong to `right` (see redirected_statement)
   * and are opened in the folders `right` starts in.
   */
  private list(node: BashNode, cwds: readonly string[], redirects: readonly BashNode[]): Outcome {
    const [left, right] = namedChildren(node);
    const op = node.children.find((c) => !c.named)?.type;
    if (left === undefined || right === undefined) return this.unknown(node, cwds);
    const l = this.statement(left, cwds);
    const start = op === '&&' ? l.ok : l.any;
    for (const redirect of redirects) this.redirect(redirect, start);
    const r = this.statement(right, start);
    return op === '&&' ? { ok: r.ok, any: union(l.any, r.any) } : { ok: union(l.ok, r.ok), any: union(l.any, r.any) };
  }

  private unknown(node: BashNode, cwds: readonly string[]): Outcome {
    this.sink.ask(`unsupported shell construct \`${node.type}\``);
    return { ok: cwds, any: cwds };
  }

  /** if/while/for/case: every branch is judged; a `cd` in one is escalated (order unknowable). */
  private control(node: BashNode, cwds: readonly string[]): Outcome {
    // A loop runs its body again after the body changed the folders.
    if (node.type === 'while_statement' || node.type === 'for_statement') this.sink.commands++;
    const walk = (children: readonly BashNode[]): void => {
      for (const child of children) {
        if (!child.named || child.type === 'comment') continue;
        if (CONTAINERS.has(child.type)) walk(child.children);
        else if (isStatement(child)) {
          const outcome = this.statement(child, cwds);
          if (outcome.any.some((c) => !cwds.includes(c))) this.sink.ask('`cd` inside a conditional or loop');
        } else this.dynamic(child, cwds, 'word');
      }
    };
    walk(node.children);
    return { ok: cwds, any: cwds };
  }

  /** Escalates expansions inside a non-command part, and judges the commands substituted there. */
  private dynamic(node: BashNode, cwds: readonly string[], what: string): void {
    for (const inner of descendants(node)) {
      if (inner.type === 'command_substitution' || inner.type === 'process_substitution') {
        this.sink.ask(`${inner.type.replace('_', ' ')} \`${inner.text.slice(0, 80)}\` in a ${what}`);
        this.subshell(inner.children, cwds);
      } else if (inner.type === 'simple_expansion' || inner.type === 'expansion' || inner.type === 'arithmetic_expansion') {
        this.sink.ask(`expansion \`${inner.text}\` in a ${what}`);
      }
    }
  }

  /** `[[ ]]` and `[ ]` evaluate comparison operands and `-v` subscripts as arithmetic, which can run code. */
  private testArithmetic(node: BashNode): void {
    for (const inner of descendants(node)) {
      if (inner.type !== 'binary_expression' && inner.type !== 'unary_expression') continue;
      const parts = namedChildren(inner);
      const operator = parts.find((c) => c.type === 'test_operator')?.text ?? '';
      const operands = parts.filter((c) => c.type !== 'test_operator');
      const text = (n: BashNode) => {
        const value = literalWord(n, this.options.home);
        return value.ok ? value.value : n.text;
      };
      const reason = arithmeticOperator(operator)
        ? operatorRisk(operator, operands.map(text))
        : operands.map((o) => (o.type === 'binary_expression' || o.type === 'unary_expression' ? undefined : subscriptCode(text(o)))).find((r) => r !== undefined);
      if (reason !== undefined) this.sink.ask(reason);
    }
  }

  /** A word that must be literal (an assignment's value may hold a glob's characters): substitutions inside are still judged, then escalated. */
  private word(node: BashNode, cwds: readonly string[], assigned = false): string | undefined {
    if (node.type === 'process_substitution') {
      this.sink.note(`process substitution \`${node.text.slice(0, 80)}\` judged as its own commands`);
      this.subshell(node.children, cwds);
      return '/dev/fd/63'; // what bash passes: a pipe to the substituted commands
    }
    const value = (assigned ? assignedWord : literalWord)(node, this.options.home);
    if (value.ok) {
      // A literal subscript holding `$(…)` runs once any arithmetic reads it (arithmetic.ts).
      const code = subscriptCode(value.value);
      if (code !== undefined) this.sink.ask(code);
      // `"$(cat <<'EOF' … EOF)"` is literal text, yet its `cat` runs: judged like any command.
      for (const inner of descendants(node)) if (inner.type === 'command_substitution') this.subshell(inner.children, cwds);
      return value.value;
    }
    this.sink.ask(value.reason);
    this.dynamic(node, cwds, 'word');
    return undefined;
  }

  private assignment(node: BashNode, cwds: readonly string[]): Assignment | undefined {
    this.visited.add(node);
    const name = fieldChildren(node, 'name')[0]?.text ?? '';
    const valueNode = fieldChildren(node, 'value')[0];
    const value = valueNode === undefined ? '' : this.word(valueNode, cwds, true);
    if (node.children.some((c) => c.type === '+=') || fieldChildren(node, 'name')[0]?.type !== 'variable_name') this.sink.ask(`unusual assignment \`${node.text.slice(0, 80)}\``);
    if (value === undefined) return undefined;
    const assignment = { name, value };
    checkAssignment(assignment, this.sink);
    return assignment;
  }

  private command(node: BashNode, cwds: readonly string[]): Outcome {
    this.sink.commands++;
    const env: Assignment[] = [];
    const argv: Argument[] = [];
    let literal = true;
    let previous: BashNode | undefined;
    for (const child of node.children) {
      if (child.field === 'name' || child.field === 'argument') {
        // tree-sitter ends a word at `]\x` where a shell goes on: `cat a]\x` reads `a]x`.
        if (previous !== undefined && previous.end === child.start) this.sink.ask(`\`${previous.text}\` and \`${child.text}\` touch: a shell may read them as one word`);
        previous = child;
      }
      if (child.field === 'redirect') this.redirect(child, cwds);
      else if (child.type === 'variable_assignment') {
        const a = this.assignment(child, cwds);
        if (a === undefined) literal = false;
        else env.push(a);
      } else if (child.field === 'name' || child.field === 'argument') {
        const target = child.field === 'name' ? (namedChildren(child)[0] ?? child) : child;
        const value = child.field === 'argument' ? this.argument(target, cwds) : this.word(target, cwds);
        if (value === undefined) literal = false;
        else argv.push(value);
      } else if (child.named) {
        this.sink.ask(`unexpected \`${child.type}\` in a command`);
        this.dynamic(child, cwds, 'command');
      }
    }
    // A command whose words are not all literal is still judged on what is known, then escalated.
    if (!literal) {
      this.sink.ask(`\`${node.text.slice(0, 80)}\` is not fully literal`);
      return { ok: cwds, any: cwds };
    }
    const ctx: CommandContext = { cwds, home: this.options.home, sink: this.sink, depth: this.depth, script: this.scriptRunner() };
    const words = argv.filter((w): w is string => typeof w === 'string');
    const ok = words.length === argv.length ? evalSimple(words, env, ctx) : this.readings(argv, env, ctx);
    return { ok, any: union(cwds, ok) };
  }

  /**
   * An argument: literal; a glob (its paths judged where a command reads its operands alike); or
   * a word zsh's BRACE_CCL may split into letters (each reading judged).
   */
  private argument(node: BashNode, cwds: readonly string[]): Argument | undefined {
    const word = node.type === 'process_substitution' ? undefined : shellWord(node, this.options.home);
    if (word?.ok === true && word.ccl !== undefined) return word.ccl;
    if (word?.ok !== true || word.glob === undefined || this.options.readDir === undefined) return this.word(node, cwds);
    this.sink.globbed.push(word.glob.value);
    return word.glob;
  }

  /**
   * A command with globs or BRACE_CCL words, planned once per reading the shell may give it. A
   * glob with a match every reading takes is its matches (a superset, glob-expand.ts), handed to
   * the command as a token; a glob that may match nothing is also planned as written (bash) and as
   * dropped (nullglob). A command that does not take a token for files it reads alike is a
   * person's call, as is a match a program would take for an option, or one only dotglob matches.
   * A BRACE_CCL word is planned as written and as its letters' words.
   */
  private readings(argv: readonly Argument[], env: readonly Assignment[], ctx: CommandContext): readonly string[] {
    const readDir = this.options.readDir;
    const [cwd, ...more] = ctx.cwds;
    const tokens = new Map<string, { readonly glob: GlobWord; readonly paths: readonly string[] }>();
    let readings: (readonly string[])[] = [[]];
    for (const word of argv) {
      let choices: readonly (readonly string[])[] | undefined;
      if (typeof word === 'string') choices = [[word]];
      else if ('words' in word) choices = [[word.value], word.words];
      else if (readDir === undefined || cwd === undefined || more.length > 0) {
        this.sink.ask(`glob \`${word.value}\` could match files${more.length > 0 ? ' in more than one working directory' : ''}`);
        return ctx.cwds;
      } else choices = this.globChoices(word, cwd, readDir, tokens);
      if (choices === undefined) return ctx.cwds;
      const next = readings.flatMap((r) => choices.map((c) => [...r, ...c]));
      if (next.length > MAX_READINGS) {
        this.sink.ask(`too many readings of one command (a glob that may match nothing is judged as written and as dropped, a BRACE_CCL word as written and as letters)`);
        return ctx.cwds;
      }
      readings = next;
    }
    let ok: readonly string[] = [];
    for (const words of readings) {
      const taken = new Set<string>();
      const globs = {
        take: (arg: string) => {
          const token = tokens.get(arg);
          if (token !== undefined) taken.add(arg);
          return token?.paths;
        },
      };
      ok = union(ok, evalSimple(words, env, { ...ctx, globs }));
      for (const w of words) {
        const token = tokens.get(w);
        if (token !== undefined && !taken.has(w)) this.sink.ask(`glob \`${token.glob.value}\` could match files, and \`${words[0] ?? ''}\` does not read them all alike`);
      }
    }
    return ok;
  }

  /** What one glob may become: its matches (a token), and, unless one match is sure, the word as written and nothing. */
  private globChoices(glob: GlobWord, cwd: string, readDir: ReadDir, tokens: Map<string, { readonly glob: GlobWord; readonly paths: readonly string[] }>): (readonly string[])[] | undefined {
    const expansion = expandGlob(glob.pattern, cwd, readDir);
    if (!expansion.ok) {
      this.sink.ask(expansion.reason);
      return undefined;
    }
    const { matches } = expansion;
    const hidden = matches.filter((m) => m.hidden);
    if (hidden.length > 0) {
      this.sink.ask(`glob \`${glob.value}\` also matches ${hidden.slice(0, 3).map((m) => `\`${m.path}\``).join(', ')}${hidden.length > 3 ? ' and more' : ''} where the shell lets a wildcard match a leading dot (dotglob, GLOB_DOTS): name the files`);
      return undefined;
    }
    const option = matches.find((m) => m.path.startsWith('-'));
    if (option !== undefined) {
      this.sink.ask(`glob \`${glob.value}\` matches \`${option.path}\`, which a program would take for an option`);
      return undefined;
    }
    const choices: (readonly string[])[] = [];
    if (matches.length > 0) {
      const token = globToken(tokens.size);
      tokens.set(token, { glob, paths: matches.map((m) => m.path) });
      choices.push([token]);
      this.sink.note(`glob \`${glob.value}\` judged as the ${String(matches.length)} path${matches.length === 1 ? '' : 's'} it can match here`);
    }
    if (!matches.some((m) => m.sure)) {
      choices.push([glob.value], []);
      this.sink.note(`glob \`${glob.value}\` may match nothing here: judged as written and as dropped`);
    }
    return choices;
  }

  private scriptRunner(): CommandContext['script'] {
    const parse = this.options.parse;
    if (parse === undefined) return undefined;
    return (source, cwds) => {
      if (this.depth + 1 > MAX_SCRIPT_DEPTH) {
        this.sink.ask('`bash -c` nested too deeply');
        return;
      }
      const tree = parse(source);
      if ('error' in tree) {
        this.sink.ask(`\`bash -c\` script: ${tree.error}`);
        return;
      }
      new Planner(this.sink, this.options, this.depth + 1).script(tree, cwds);
    };
  }

  private redirect(node: BashNode, cwds: readonly string[]): void {
    switch (node.type) {
      case 'file_redirect':
        this.fileRedirect(node, cwds);
        return;
      case 'herestring_redirect':
        for (const w of namedChildren(node)) this.word(w, cwds);
        return;
      case 'heredoc_redirect': {
        const misread = heredocMisread(node);
        if (misread !== undefined) {
          // What follows may be commands the shell runs that tree-sitter took for text.
          this.sink.ask(misread);
          return;
        }
        for (const child of namedChildren(node)) {
          if (child.type === 'heredoc_start' || child.type === 'heredoc_end') continue;
          if (child.type === 'heredoc_body') {
            if (namedChildren(child).some((c) => c.type !== 'heredoc_content')) this.dynamic(child, cwds, 'here-document');
            if (namedChildren(child).some((c) => c.type !== 'heredoc_content')) this.sink.ask('expansions inside an unquoted here-document');
          } else if (child.type === 'file_redirect' || child.type === 'herestring_redirect') this.redirect(child, cwds);
          else if (child.type === 'pipeline') this.statement(child, cwds);
          else {
            this.sink.ask(`\`${child.type}\` after a here-document is not followed`);
            this.visited.add(child);
            this.statement(child, cwds);
          }
        }
        return;
      }
      default:
        this.sink.ask(`unsupported redirection \`${node.text.slice(0, 80)}\``);
    }
  }

  private fileRedirect(node: BashNode, cwds: readonly string[]): void {
    const op = node.children.filter((c) => !c.named).map((c) => c.type).join('');
    const destinations = fieldChildren(node, 'destination');
    const [dest] = destinations;
    if (dest === undefined || destinations.length !== 1) {
      // tree-sitter reads `cmd > f x` as two destinations; bash makes `x` an argument.
      this.sink.ask(`redirection \`${node.text.slice(0, 80)}\` is ambiguous`);
      for (const d of destinations) this.word(d, cwds);
      return;
    }
    const target = this.word(dest, cwds);
    if (target === undefined) return;
    if ((op === '>&' || op === '<&') && /^(?:\d+-?|-)$/u.test(target)) return; // fd duplication or close
    if (SAFE_DEVICES.test(target)) return;
    if (target.startsWith('/dev/')) {
      this.sink.ask(`redirection to device \`${target}\` (bash opens /dev/tcp and /dev/udp as sockets)`);
      return;
    }
    const ctx: CommandContext = { cwds, home: this.options.home, sink: this.sink, depth: this.depth, script: undefined };
    switch (op) {
      case '<':
        fsAction('fs.read', target, ctx);
        return;
      case '>':
      case '>>':
      case '>|':
      case '&>':
      case '&>>':
      case '>&':
        fsAction('fs.write', target, ctx);
        return;
      default:
        this.sink.ask(`redirection \`${op}\` is not understood`);
    }
  }
}

function isStatement(node: BashNode): boolean {
  return COMMAND_NODES.has(node.type) || CONTROL.has(node.type) || ['redirected_statement', 'list', 'pipeline', 'subshell', 'compound_statement', 'negated_command'].includes(node.type);
}

/**
 * What a searcher skips as ignored is read from the tree before the command runs: a part of the
 * same command that writes or runs anything may change the ignore files first (`rm .gitignore;
 * rg x`), so beside such a part no search is taken to skip what the repository ignores.
 */
function untrustIgnores(actions: readonly OracleAction[]): readonly OracleAction[] {
  const onlyReads = actions.every((a) => a.tool === 'fs.read' || a.tool === 'fs.list');
  if (onlyReads) return actions;
  return actions.map((a) => (a.search?.honoursIgnores === true ? { ...a, search: { ...a.search, honoursIgnores: false } } : a));
}

/** A delimiter as the shell reads it: a plain word, or one wholly in '…', "…" or after one `\`. */
const HEREDOC_DELIMITER = /^(?:([A-Za-z0-9_.+-]+)|'([A-Za-z0-9_.+ -]+)'|"([A-Za-z0-9_.+ -]+)"|\\([A-Za-z0-9_.+-]+))$/u;

/**
 * Why the shell may end a here-document elsewhere than tree-sitter did, or undefined. The shell
 * removes quotes from the delimiter (`E""OF` ends at a line `EOF`) while tree-sitter waits for the
 * text as written, so every line after the real end, commands included, would be read as text.
 * Only the common forms are followed, and no line of the text may be the delimiter.
 */
function heredocMisread(node: BashNode): string | undefined {
  const start = namedChildren(node).find((c) => c.type === 'heredoc_start');
  const parts = HEREDOC_DELIMITER.exec(start?.text ?? '');
  const delimiter = parts === null ? undefined : (parts[1] ?? parts[2] ?? parts[3] ?? parts[4]);
  if (start === undefined || delimiter === undefined) return `here-document delimiter \`${(start?.text ?? '').slice(0, 40)}\` is not a form ORACLE follows (the shell removes its quotes)`;
  const end = namedChildren(node).find((c) => c.type === 'heredoc_end');
  if (end !== undefined && end.text !== delimiter) return `here-document delimiter \`${start.text}\` ends at \`${delimiter}\` for the shell`;
  const strip = node.children.some((c) => !c.named && c.type === '<<-');
  const body = namedChildren(node).find((c) => c.type === 'heredoc_body');
  const lines = (body?.text ?? '').split('\n').map((l) => (strip ? l.replace(/^\t+/u, '') : l));
  return lines.includes(delimiter) ? `here-document text holds its own delimiter \`${delimiter}\` on a line` : undefined;
}
