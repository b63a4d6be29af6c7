/**
 * Shell arithmetic runs code. bash and zsh evaluate an array subscript inside arithmetic, and
 * expand `$(…)` there even when the text came from a quoted literal: `[[ 'a[$(id)]' -eq 0 ]]`,
 * `test -v 'a[$(id)]'` and zsh's `exit 'a[$(id)]'` all run `id`. A bare name is a variable whose
 * value is evaluated in turn, so `x='a[$(id)]'; [[ x -eq 0 ]]` runs it too. The planner already
 * asks for `$((…))`, `((…))`, `let`, `declare -i` and `read`; these are the places left where a
 * literal word reaches arithmetic.
 */

/** Comparisons whose operands `[[ ]]` (and zsh's `test`) evaluate as arithmetic. */
export const ARITHMETIC_COMPARISONS: ReadonlySet<string> = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
/** Unary tests whose operand may be an array element, whose subscript is evaluated. */
export const VARIABLE_TESTS: ReadonlySet<string> = new Set(['-v', '-R']);

const INTEGER = /^\s*[+-]?\d+\s*$/u;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/u;
/** A subscript that holds a substitution: code once any arithmetic reads it. */
const SUBSCRIPT_CODE = /\[[^\]]*(?:\$[({]|`)/u;

/** Why an operand of an arithmetic comparison may run code, or undefined for a plain integer. */
export function comparedOperand(text: string): string | undefined {
  return INTEGER.test(text) ? undefined : `\`${text.slice(0, 60)}\` is evaluated as shell arithmetic, which can run code`;
}

/** Why the operand of `-v`/`-R` may run code, or undefined for a plain variable name. */
export function testedVariable(text: string): string | undefined {
  return NAME.test(text) ? undefined : `\`${text.slice(0, 60)}\` names an array element whose subscript the shell evaluates`;
}

/** Why a literal word would run code once shell arithmetic reads it, or undefined. */
export function subscriptCode(text: string): string | undefined {
  return SUBSCRIPT_CODE.test(text) ? `\`${text.slice(0, 60)}\` holds a subscript with a substitution, which shell arithmetic runs` : undefined;
}

/**
 * Why the arguments of `test`, `[`, `exit` or `return` reach arithmetic with something other than
 * a plain integer, or undefined. zsh evaluates `exit` and `return` operands as math expressions.
 */
export function argvArithmetic(program: string, args: readonly string[]): string | undefined {
  if (program === 'exit' || program === 'return') {
    const status = args[0];
    return status === undefined ? undefined : comparedOperand(status);
  }
  if (program !== 'test' && program !== '[') return undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (ARITHMETIC_COMPARISONS.has(arg)) {
      const reason = comparedOperand(args[i - 1] ?? '') ?? comparedOperand(args[i + 1] ?? '');
      if (reason !== undefined) return reason;
    } else if (VARIABLE_TESTS.has(arg) && i + 1 < args.length) {
      const reason = testedVariable(args[i + 1] ?? '');
      if (reason !== undefined) return reason;
    }
  }
  return undefined;
}
