import { isAbsolute, relative } from 'node:path';
import type { AgentView } from '../core/policy/agent-view.js';
import { realPathOrUndefined } from '../adapters/real-path.js';

/**
 * Where exec_run runs when the model names no `cwd`: the folder the host started `oracle mcp` in
 * (its project, for most hosts) when one of the agent's scopes holds it, as every relative path
 * argument already means that folder; else nothing, and the program runs in an empty folder of its
 * own. Only a default: the gate judges the folder like any path (an excluded part is refused).
 */
export function defaultCwd(base: string, view: Pick<AgentView, 'scopes'>, real: (path: string) => string | undefined = realPathOrUndefined): string | undefined {
  for (const scope of view.scopes) {
    for (const root of scope.roots) {
      const resolved = real(root.path);
      if (resolved !== undefined && holds(resolved, base)) return base;
    }
  }
  return undefined;
}

function holds(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
