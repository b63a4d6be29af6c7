import type { ProgramRule } from './types.js';

/**
 * What an argv no entry or pattern of the program covers gets: refused (`deny`, also when the
 * program says nothing and has rules), a person's call with a floor (`confirm`, its `default:`),
 * or a person's call every time with no floor (`ungoverned`: no rules and no `default:`, so a tier
 * rule naming the program is how a person lets it run). Pure.
 */
export function uncoveredArgv(rule: ProgramRule): 'deny' | 'confirm' | 'ungoverned' {
  if (rule.otherwise !== undefined) return rule.otherwise;
  return rule.allow.length + rule.confirm.length + rule.deny.length + rule.argPatterns.length === 0 ? 'ungoverned' : 'deny';
}
