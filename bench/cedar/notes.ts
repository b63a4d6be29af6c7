/**
 * What the Cedar translation does not carry over exactly, printed with every run so the figures
 * are read with it. Each item says which way it errs.
 */
export const TRANSLATION_NOTES: readonly string[] = [
  'Cedar has no path type, normalisation or file system: SPEC §5 steps 1–9 (lexing, `..`, links, the re-check) run before Cedar with the gate’s own functions and reach it as context.path (lexical) and context.real (resolved); scopes and deny_always (steps 10–11) are Cedar policies over those strings.',
  'Globs become `like` patterns (`*` is Cedar’s only wildcard and also matches `/`): `**` segments, a leading `*` after `**`, a trailing `*` and braces are exact; any other `*`, `?` and brackets are wider in Cedar (it denies more). Every shipped deny_always pattern is exact.',
  'Case-insensitive hosts (Windows, macOS) would need folded paths in the context and lower-cased patterns; the bench runs the Linux flavor, where comparison is exact.',
  'Longest root wins (step 10) is compiled into forbids that yield to longer roots inside them; the root a permit came from is not reported.',
  'Cedar has sets but no lists and no quantifier over a set with `like`: the request carries argv positions (a0, a1, …), the token set, long-option names and short-flag letters, so words, flags, git’s abbreviations and bundles and allow_args_matching are exact; a `?` inside an allow_args_matching token becomes `*` (wider for allow), a `+ref` force-push spelling is not expressible (Cedar allows it where ORACLE denies), and `-a-f` counts as holding `-f` (Cedar denies more).',
  'Each path an exec argument could name is its own Cedar request (action exec.arg), as is each further path argument; an ORACLE action is allowed when all of its requests are.',
  'Refusals on the shape of input (schema, unresolvable paths, URLs that do not parse, header syntax, NUL/control/bidi characters in argv, `~` in argv) are made while building the request and reach Cedar as context.refused, which a forbid denies: Cedar has no regular expressions.',
  'Cedar decides permit or deny: tiers (T0–T3), who approves, tier rules, taint, read-only and halted modes are not translated; the cross-check maps ORACLE allow and needs-approval to permit.',
  'Not translated for the tools the corpus does not use: git.commit message and paths-inside-repo checks, git.push ref-name shape, term.write line and character checks, exec.run_with_secrets secret names (all of them ORACLE denials Cedar would permit).',
  'Cedar skips a policy that errors; every attribute a policy reads is guarded with `has` or always present, and the run reports any evaluation error (ORACLE would deny).',
];
