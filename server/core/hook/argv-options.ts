/**
 * GNU-style argv of the file tools the hook maps (mkdir, touch, cp, mv, rm, ln, sed): options may
 * come anywhere before `--` (getopt permutes them), short flags bundle (`-rf`), a value-taking short
 * option takes the rest of its token or the next one, and a long option may be abbreviated to any
 * unique prefix. Parsing is an allowlist: an option the spec does not name is not understood, and
 * the caller escalates it.
 */
export interface OptionSpec {
  /** Short letters without a value (`p` for `-p`). */
  readonly flags: string;
  /** Short letters that take a value (`m` for `-m MODE`). */
  readonly values?: string;
  /** Long options without a value, and with one (`--mode=`), written without the dashes. */
  readonly long?: readonly string[];
  readonly longValues?: readonly string[];
  /** Options whose value is optional: a short letter takes only the rest of its own token (`-i.bak`), a long one only `=value`. */
  readonly optional?: string;
  readonly longOptional?: readonly string[];
}

export interface ParsedArgv {
  readonly operands: readonly string[];
  /** Every option seen, by its short letter or full long name, with each value given (`true` for none). */
  readonly options: ReadonlyMap<string, readonly (string | true)[]>;
}

export type OptionsResult = { readonly ok: true; readonly value: ParsedArgv } | { readonly ok: false; readonly option: string };

export function parseOptions(args: readonly string[], spec: OptionSpec): OptionsResult {
  const operands: string[] = [];
  const options = new Map<string, (string | true)[]>();
  const set = (name: string, value: string | true): void => {
    options.set(name, [...(options.get(name) ?? []), value]);
  };
  const values = spec.values ?? '';
  const optional = spec.optional ?? '';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (arg === '-' || !arg.startsWith('-')) {
      operands.push(arg);
      continue;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = arg.slice(2, eq < 0 ? undefined : eq);
      const full = expandLong(name, spec);
      if (full === undefined) return { ok: false, option: arg };
      const takesValue = (spec.longValues ?? []).includes(full);
      if (takesValue) {
        if (eq >= 0) set(full, arg.slice(eq + 1));
        else if (i + 1 < args.length) set(full, args[++i] ?? '');
        else return { ok: false, option: arg };
      } else if (eq >= 0) {
        if (!(spec.longOptional ?? []).includes(full)) return { ok: false, option: arg };
        set(full, arg.slice(eq + 1));
      } else set(full, true);
      continue;
    }
    for (let j = 1; j < arg.length; j++) {
      const letter = arg.charAt(j);
      const rest = arg.slice(j + 1);
      if (values.includes(letter)) {
        if (rest !== '') set(letter, rest);
        else if (i + 1 < args.length) set(letter, args[++i] ?? '');
        else return { ok: false, option: `-${letter}` };
        break;
      }
      if (optional.includes(letter)) {
        set(letter, rest === '' ? true : rest);
        break;
      }
      if (!spec.flags.includes(letter)) return { ok: false, option: `-${letter}` };
      set(letter, true);
    }
  }
  return { ok: true, value: { operands, options } };
}

/** A long option's full name, if `name` is it or a prefix of exactly one (getopt_long). */
function expandLong(name: string, spec: OptionSpec): string | undefined {
  const all = [...(spec.long ?? []), ...(spec.longValues ?? []), ...(spec.longOptional ?? [])];
  if (all.includes(name)) return name;
  const matches = all.filter((o) => o.startsWith(name));
  return name.length > 0 && matches.length === 1 ? matches[0] : undefined;
}

/** Whether any of these short letters or long names was given. */
export function hasOption(parsed: ParsedArgv, ...names: readonly string[]): boolean {
  return names.some((n) => parsed.options.has(n));
}

/** Every value given to these options, in order (`-e a -e b` → a, b). */
export function optionValues(parsed: ParsedArgv, ...names: readonly string[]): string[] {
  return names.flatMap((n) => (parsed.options.get(n) ?? []).filter((v): v is string => typeof v === 'string'));
}
