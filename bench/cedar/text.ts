/**
 * Writing Cedar policy text (https://docs.cedarpolicy.com/policies/syntax-policy.html). Every
 * ORACLE value reaches Cedar through these, so quoting is in one place.
 */

export const NS = 'Oracle';

/** A Cedar string literal: `"` and `\` escaped, controls as \u{…}. */
export function str(value: string): string {
  return `"${escape(value, false)}"`;
}

/** The literal of a `like` pattern: as `str`, and a literal `*` is `\*` (Cedar's only wildcard is `*`). */
export function likeLiteral(value: string): string {
  return escape(value, true);
}

function escape(value: string, inPattern: boolean): string {
  let out = '';
  for (const c of value) {
    const code = c.codePointAt(0) ?? 0;
    if (c === '"' || c === '\\' || (inPattern && c === '*')) out += `\\${c}`;
    else if (code < 0x20 || code === 0x7f) out += `\\u{${code.toString(16)}}`;
    else out += c;
  }
  return out;
}

/** `["a", "b"]` */
export function set(values: Iterable<string>): string {
  return `[${[...values].map(str).join(', ')}]`;
}

export function entity(type: string, id: string): string {
  return `${NS}::${type}::${str(id)}`;
}

/** OR of the parts, parenthesised; `false` when there are none. */
export function any(parts: readonly string[]): string {
  return parts.length === 0 ? 'false' : parts.length === 1 ? (parts[0] ?? 'false') : `(${parts.join(' || ')})`;
}

/**
 * One Cedar policy, its id being the ORACLE rule it translates (Cedar reports ids as reasons).
 * Kept as parts so the same rules can be written one policy per rule or merged (merge.ts).
 */
export interface CedarPolicy {
  readonly id: string;
  readonly effect: 'permit' | 'forbid';
  /** The action constraint of the head, e.g. `action in [Oracle::Action::"fs.read"]`; absent: any. */
  readonly action?: string;
  /** The resource constraint, e.g. `resource == Oracle::Program::"git"`; absent: any. */
  readonly resource?: string;
  readonly when?: string;
  readonly unless?: string;
}

export function policyText(p: CedarPolicy): string {
  const when = p.when === undefined ? '' : ` when { ${p.when} }`;
  const unless = p.unless === undefined ? '' : ` unless { ${p.unless} }`;
  return `${p.effect} (principal, ${p.action ?? 'action'}, ${p.resource ?? 'resource'})${when}${unless};`;
}

/** The same policy as one condition (head, when and not-unless), for merging. */
export function policyCondition(p: CedarPolicy): string {
  const parts = [p.action, p.resource, p.when, p.unless === undefined ? undefined : `!(${p.unless})`].filter((x): x is string => x !== undefined);
  return parts.length === 0 ? 'true' : parts.map((x) => `(${x})`).join(' && ');
}
