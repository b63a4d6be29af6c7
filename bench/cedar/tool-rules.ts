import type { CedarPolicy } from './text.js';
import { EXEC_ARG, inGroup, isTool } from './tools.js';

/**
 * The SPEC §4 table's permits for the tools that have no grammar of their own (exec.run and
 * net.fetch get theirs from programs.ts and egress.ts). Cedar answers permit or deny, so every
 * tier (T0 through T3) is a permit here; which tier, and whether a person must approve, is not
 * translated. Paths are constrained by the forbids of paths.ts.
 */
export function toolPolicies(): CedarPolicy[] {
  return [
    { id: 'fs', effect: 'permit', action: inGroup('fs') },
    // git runs only where `.git` is a real directory (a file-system fact, resolved before Cedar).
    { id: 'git', effect: 'permit', action: inGroup('git'), when: 'context.worktree' },
    { id: 'git.push', effect: 'forbid', action: isTool('git.push'), when: 'context.force' },
    { id: 'agent.delegate', effect: 'permit', action: isTool('agent.delegate') },
    { id: 'term.write', effect: 'permit', action: isTool('term.write') },
    { id: 'desktop', effect: 'permit', action: inGroup('desktop') },
    // exec arguments that name paths: denied only by deny_always and ORACLE's own files.
    { id: 'exec.arg', effect: 'permit', action: isTool(EXEC_ARG) },
    // What the request builder refused before Cedar (unparseable input, an unresolvable path): fail closed.
    { id: 'input', effect: 'forbid', when: 'context has refused' },
  ];
}
