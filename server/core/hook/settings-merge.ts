import { POST_TOOL_MATCHER } from './claude-code-map.js';

/**
 * Adds or removes ORACLE's hooks in a Claude Code settings object, keeping everything else as it
 * is; running it twice changes nothing the second time (SPEC §11 `oracle integrate claude-code`).
 * Both kinds block the tool call when ORACLE cannot answer (`onFailure: "block"`; the command also
 * ends in `|| exit 2`, which Claude Code reads as blocking), so the hook never fails open.
 */
export const HOOK_MARK = 'hook claude-code';
/** The gate's route for Claude Code's payloads (an http hook's url ends with it). */
export const HOOK_ROUTE = '/api/v1/hooks/claude-code';
const CA_ENV = 'NODE_EXTRA_CA_CERTS';

type Json = Record<string, unknown>;

export type OracleHook =
  | { readonly kind: 'command'; readonly command: string; readonly timeoutS: number }
  /** Claude Code posts the payload to the running gate: no process per tool call. */
  | { readonly kind: 'http'; readonly url: string; readonly token: string; readonly caFile: string; readonly timeoutS: number };

interface HookEntry {
  matcher?: string;
  hooks?: { type?: string; command?: string; url?: string; timeout?: number }[];
}

const isOurs = (entry: HookEntry): boolean =>
  (entry.hooks ?? []).some((h) => (typeof h.command === 'string' && h.command.includes(HOOK_MARK)) || (typeof h.url === 'string' && h.url.endsWith(HOOK_ROUTE)));

/** The command as written: `|| exit 2` turns "could not run" (exit 1, 126, 127) into a block. */
export const blockingCommand = (command: string): string => `${command} || exit 2`;

export function withOracleHooks(settings: Json, hook: OracleHook): Json | { readonly error: string } {
  const env = { ...((settings['env'] as Json | undefined) ?? {}) };
  if (hook.kind === 'http') {
    // Claude Code trusts the gate's certificate only through its local CA.
    const current = env[CA_ENV];
    if (current !== undefined && current !== hook.caFile) return { error: `settings already set ${CA_ENV} to \`${JSON.stringify(current)}\`; the http hook needs ORACLE's CA there (use the command hook)` };
    env[CA_ENV] = hook.caFile;
  }
  const entry = (timeoutS: number) =>
    hook.kind === 'command'
      ? { type: 'command', command: blockingCommand(hook.command), timeout: timeoutS, onFailure: 'block' }
      : { type: 'http', url: hook.url, headers: { Authorization: `Bearer ${hook.token}` }, timeout: timeoutS, onFailure: 'block' };
  const hooks = { ...((settings['hooks'] as Json | undefined) ?? {}) };
  // Every tool before it runs, and every shell command a skill's text runs as it loads (which
  // Claude Code runs without a PreToolUse); after a tool runs, only the tools whose output can
  // taint the session.
  for (const [event, matcher, timeout] of [
    ['PreToolUse', '*', hook.timeoutS],
    ['PreSkillShellCommand', '*', hook.timeoutS],
    ['PostToolUse', POST_TOOL_MATCHER, 30],
  ] as const) {
    const others = ((hooks[event] as HookEntry[] | undefined) ?? []).filter((e) => !isOurs(e));
    hooks[event] = [{ matcher, hooks: [entry(timeout)] }, ...others];
  }
  const { env: _env, ...rest } = settings;
  return { ...rest, ...(Object.keys(env).length === 0 ? {} : { env }), hooks };
}

export function withoutOracleHooks(settings: Json, caFile?: string): Json {
  let out = settings;
  const env = settings['env'] as Json | undefined;
  if (env !== undefined && caFile !== undefined && env[CA_ENV] === caFile) {
    const { [CA_ENV]: _ca, ...kept } = env;
    const { env: _env, ...rest } = out;
    out = Object.keys(kept).length === 0 ? rest : { ...rest, env: kept };
  }
  const current = out['hooks'] as Json | undefined;
  if (current === undefined) return out;
  const hooks: Json = {};
  for (const [event, entries] of Object.entries(current)) {
    const kept = Array.isArray(entries) ? (entries as HookEntry[]).filter((e) => !isOurs(e)) : entries;
    if (!Array.isArray(kept) || kept.length > 0) hooks[event] = kept;
  }
  const { hooks: _old, ...rest } = out;
  return Object.keys(hooks).length === 0 ? rest : { ...rest, hooks };
}
