/**
 * Shell arithmetic runs code. bash and zsh evaluate an array subscript inside arithmetic, and
 * expand `$(…)` there even when the text came from a quoted literal: `[[ 'a[$(id)]' -eq 0 ]]`,
 * `test -v 'a[$(id)]'` and zsh's `exit 'a[$(id)]'` all run `id`. A bare name is a variable whose
 * value is evaluated in turn, so `x='a[$(id)]'; [[ x -eq 0 ]]` runs it too. The planner already
 * asks for `$((…))`, `((…))`, `let`, `declare -i` and `read`; these are the places left where a
 * literal word reaches arithmetic.
 */

/** Comparisons whose operands `[[ ]]` (and zsh's `test`) evaluate as arithmetic. */
const ARITHMETIC_COMPARISONS: ReadonlySet<string> = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
/** Unary tests whose operand may be an array element, whose subscript is evaluated. */
const VARIABLE_TESTS: ReadonlySet<string> = new Set(['-v', '-R']);

const INTEGER = /^\s*[+-]?\d+\s*$/u;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/u;
/**
 * A subscript that holds a substitution (`[` then, before any `]`, `$(`, `${` or a backtick): code
 * once any arithmetic reads it. One pass: as `/\[[^\]]*(?:\$[({]|`)/` it backtracked from every
 * `[`, and 100,000 of them held the gate's thread for 11 s (red team, session 31).
 */
function holdsSubscriptCode(text: string): boolean {
  let open = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c === '[') open = true;
    else if (c === ']') open = false;
    else if (open && (c === '`' || (c === '$' && (text.charAt(i + 1) === '(' || text.charAt(i + 1) === '{')))) return true;
  }
  return false;
}

/** Whether a test operator hands its operands to arithmetic (`operatorRisk` says when that runs code). */
export function arithmeticOperator(operator: string): boolean {
  return ARITHMETIC_COMPARISONS.has(operator) || VARIABLE_TESTS.has(operator);
}

/**
 * Why a test operator's operands (both of a comparison, the one of a unary test) may run code, or
 * undefined: a comparison's operand must be a plain integer, a `-v`/`-R` operand a plain name.
 */
export function operatorRisk(operator: string, operands: readonly string[]): string | undefined {
  if (ARITHMETIC_COMPARISONS.has(operator)) {
    for (const text of operands) if (!INTEGER.test(text)) return `\`${text.slice(0, 60)}\` is evaluated as shell arithmetic, which can run code`;
    return undefined;
  }
  const name = operands[0];
  if (VARIABLE_TESTS.has(operator) && name !== undefined && !NAME.test(name)) return `\`${name.slice(0, 60)}\` names an array element whose subscript the shell evaluates`;
  return undefined;
}

/** Why a literal word would run code once shell arithmetic reads it, or undefined. */
export function subscriptCode(text: string): string | undefined {
  return holdsSubscriptCode(text) ? `\`${text.slice(0, 60)}\` holds a subscript with a substitution, which shell arithmetic runs` : undefined;
}

/**
 * Why the arguments of `test`, `[`, `exit` or `return` reach arithmetic with something other than
 * a plain integer, or undefined. zsh evaluates `exit` and `return` operands as math expressions.
 */
export function argvArithmetic(program: string, args: readonly string[]): string | undefined {
  // zsh reads the status as `[[ STATUS -eq 0 ]]` reads an operand.
  if (program === 'exit' || program === 'return') return args[0] === undefined ? undefined : operatorRisk('-eq', [args[0]]);
  if (program !== 'test' && program !== '[') return undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const operands = ARITHMETIC_COMPARISONS.has(arg) ? [args[i - 1] ?? '', args[i + 1] ?? ''] : args.slice(i + 1, i + 2);
    const reason = operatorRisk(arg, operands);
    if (reason !== undefined) return reason;
  }
  return undefined;
}
