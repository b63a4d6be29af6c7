import type { EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import { CAPABILITIES } from '../../shared/capabilities.js';
import { allTools, type ToolContract } from '../../server/core/tools/registry.js';
import { NS, str } from './text.js';

/**
 * Cedar actions, read off ORACLE's tool registry (SPEC §4): one per tool, plus `exec.arg`, the
 * request for each path an exec argument names (Cedar has no quantifier over a set, so each is
 * authorised on its own). Policy heads name action groups (`action in Oracle::Action::"paths"`),
 * Cedar's idiom for "these tools"; each request carries its action entity with its groups.
 */
export const EXEC_ARG = 'exec.arg';
export const EXEC_TOOLS = ['exec.run', 'exec.run_with_secrets'] as const;

type Access = 'read' | 'write' | 'delete';

/**
 * The tools the reference translates: those whose path arguments share one access. The changes an
 * agent's own runtime makes (fs.copy, fs.move, fs.link: a source read or deleted, a destination
 * written) would each need two Cedar actions; the corpus has none of them, so they are left out
 * of the comparison rather than stated wrongly.
 */
const TRANSLATED = allTools().filter((t) => new Set(t.paths.map((p) => p.access)).size <= 1);

/** The access of a translated tool's path arguments. */
function pathAccess(contract: ToolContract): Access | undefined {
  return contract.paths[0]?.access;
}

function withPaths(...accesses: readonly Access[]): string[] {
  return TRANSLATED.filter((t) => {
      const access = pathAccess(t);
      return access !== undefined && accesses.includes(access);
    })
    .map((t) => t.name);
}

const GROUPS: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  // a path that must lie in a scope (step 10)
  ['paths', withPaths('read', 'write', 'delete')],
  // a path deny_always and ORACLE's own files apply to (step 11), exec arguments included
  ['paths.guarded', [...withPaths('read', 'write', 'delete'), EXEC_ARG]],
  ['paths.write', withPaths('write', 'delete')],
  ['paths.delete', withPaths('delete')],
  ['exec', EXEC_TOOLS],
  ['fs', ['fs.read', 'fs.list', 'fs.write', 'fs.delete']],
  ['git', ['git.status', 'git.diff', 'git.log', 'git.commit', 'git.push']],
  ['desktop', ['input.synth', 'sys.settings']],
  ...CAPABILITIES.map((c): [string, string[]] => [`needs.${c}`, TRANSLATED.filter((t) => t.capabilities.includes(c)).map((t) => t.name)]),
]);

/** A policy head's action constraint: one tool, or a group. */
export function inGroup(group: string): string {
  if (!GROUPS.has(group)) throw new TypeError(`no Cedar action group \`${group}\``);
  return `action in ${NS}::Action::${str(group)}`;
}

export function isTool(tool: string): string {
  return `action == ${NS}::Action::${str(tool)}`;
}

export function groupHasMembers(group: string): boolean {
  return (GROUPS.get(group) ?? []).length > 0;
}

/** The action entity a request carries: the tool, its groups as parents. */
export function actionEntity(tool: string): EntityJson {
  const parents = [...GROUPS].filter(([, members]) => members.includes(tool)).map(([group]) => ({ type: `${NS}::Action`, id: group }));
  return { uid: { type: `${NS}::Action`, id: tool }, attrs: {}, parents };
}
