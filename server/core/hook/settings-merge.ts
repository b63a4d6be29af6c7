/**
 * Adds or removes ORACLE's hooks in a Claude Code settings object, keeping everything else as it
 * is; running it twice changes nothing the second time (SPEC §11 `oracle integrate claude-code`).
 */
export const HOOK_MARK = 'hook claude-code';

type Json = Record<string, unknown>;

interface HookEntry {
  matcher?: string;
  hooks?: { type?: string; command?: string; timeout?: number }[];
}

const isOurs = (entry: HookEntry): boolean => (entry.hooks ?? []).some((h) => typeof h.command === 'string' && h.command.includes(HOOK_MARK));

export function withOracleHooks(settings: Json, command: string): Json {
  const hooks = { ...((settings['hooks'] as Json | undefined) ?? {}) };
  for (const [event, timeout] of [
    ['PreToolUse', 120],
    ['PostToolUse', 30],
  ] as const) {
    const others = ((hooks[event] as HookEntry[] | undefined) ?? []).filter((e) => !isOurs(e));
    hooks[event] = [{ matcher: '*', hooks: [{ type: 'command', command, timeout }] }, ...others];
  }
  return { ...settings, hooks };
}

export function withoutOracleHooks(settings: Json): Json {
  const current = settings['hooks'] as Json | undefined;
  if (current === undefined) return settings;
  const hooks: Json = {};
  for (const [event, entries] of Object.entries(current)) {
    const kept = Array.isArray(entries) ? (entries as HookEntry[]).filter((e) => !isOurs(e)) : entries;
    if (!Array.isArray(kept) || kept.length > 0) hooks[event] = kept;
  }
  const { hooks: _old, ...rest } = settings;
  return Object.keys(hooks).length === 0 ? rest : { ...rest, hooks };
}
