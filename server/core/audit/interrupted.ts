/**
 * After a crash (issue 14 point 5): the actions the last process dispatched and never finished.
 * Records come newest first; the walk stops at the `policy.load` that opened that process, so it
 * reads one run of the log, not all of it. An action whose `dispatched` has no `succeeded`,
 * `failed`, `cancelled` or `interrupted` after it was cut off mid-way: the next start says so in the log.
 */
const TERMINAL = new Set(['succeeded', 'failed', 'interrupted', 'cancelled']);

export function interruptedActions(newestFirst: Iterable<unknown>): string[] {
  const finished = new Set<string>();
  const cut: string[] = [];
  for (const record of newestFirst) {
    if (typeof record !== 'object' || record === null) continue;
    const { kind, action_id: id } = record as { kind?: unknown; action_id?: unknown };
    if (kind === 'policy.load') break;
    if (typeof id !== 'string') continue;
    if (typeof kind === 'string' && TERMINAL.has(kind)) finished.add(id);
    else if (kind === 'dispatched' && !finished.has(id)) cut.push(id);
  }
  return cut.reverse();
}
