import { deny, type Decision } from '../../../shared/decision.js';
import type { Pin } from './context.js';
import type { Evaluation } from './decide.js';

/**
 * An exec.run that ORACLE's own toolhost would run (MCP, REST, `oracle run`) whose program was
 * never pinned: no answer could make it run, since the toolhost starts only the programs pinned at
 * start and never searches PATH. `programs.default: confirm` had made such a call a card, and the
 * approved action then failed with "the program was not pinned at start" (MCP probe, session 36:
 * `ls`, and `npm test` written as one program name). It is refused now, before anyone is asked,
 * with what to do instead. Not for the hook: an agent runtime's own commands (Claude Code's Bash)
 * run outside ORACLE, where `programs.default: confirm` means what it says.
 */
export function unrunnableProgram(evaluation: Evaluation, pins: ReadonlyMap<string, Pin>): Decision | undefined {
  const { tool, args, decision } = evaluation;
  if ((tool !== 'exec.run' && tool !== 'exec.run_with_secrets') || args === null || decision.decision === 'deny') return undefined;
  const program = typeof args['program'] === 'string' ? args['program'] : '';
  if (pins.get(program)?.ok === true) return undefined;
  const first = program.trim().split(/\s+/u)[0] ?? '';
  if (/\s/u.test(program.trim()) && first !== '') {
    return deny('PROGRAM_UNKNOWN', 'programs', [`\`${program}\` is not a program name: name the program alone (\`${first}\`) and put the rest in \`args\``]);
  }
  return deny('PROGRAM_UNKNOWN', 'programs', [
    `\`${program}\` is not in the policy's program list, so ORACLE cannot run it: it runs only the listed programs, pinned when it started, and never searches PATH. For files use the fs tools (list, read, search); otherwise run a listed program, or ask the person to add \`${program}\` under \`programs:\` in the policy`,
  ]);
}
