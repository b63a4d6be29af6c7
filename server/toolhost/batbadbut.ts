/**
 * BatBadBut (CVE-2024-24576 and kin, seed 001): on Windows a .cmd or .bat target is re-parsed
 * by cmd.exe after the caller has quoted its arguments, and there is no correct escaping. So an
 * argument holding any character cmd.exe would reinterpret is refused. Pure; tested on every OS.
 */
const BATCH = /\.(?:cmd|bat)$/iu;
// cmd.exe metacharacters, quoting, variable expansion and line breaks.
const CMD_SPECIAL = /[&|<>^"%!()\r\n]/u;

export function isBatchTarget(program: string): boolean {
  return BATCH.test(program);
}

/** Why the argv is refused for this target, or undefined when it may run. */
export function batBadButRefusal(program: string, args: readonly string[]): string | undefined {
  if (!isBatchTarget(program)) return undefined;
  const bad = args.find((a) => CMD_SPECIAL.test(a) || a.includes('\u0000') || /\s$/u.test(a) || a.endsWith('\\'));
  return bad === undefined ? undefined : `argument \`${bad}\` would be re-parsed by cmd.exe for the batch file \`${program}\``;
}
