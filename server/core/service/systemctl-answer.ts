/**
 * What `systemctl --user is-active` and `is-enabled` answered, read strictly: one of the states
 * systemctl(1) documents, or "could not ask" with systemctl's own words. Both exit non-zero for a
 * plain "inactive" or "disabled" as well as for a manager that is not there ("Failed to connect to
 * bus"), so the exit status alone cannot tell them apart; the printed word can. Anything that is
 * not a documented state is never shown as one (an error message is not a service state).
 */
const ACTIVE_STATES = ['active', 'reloading', 'inactive', 'failed', 'activating', 'deactivating', 'maintenance', 'refreshing'] as const;
const ENABLED_STATES = ['enabled', 'enabled-runtime', 'linked', 'linked-runtime', 'alias', 'masked', 'masked-runtime', 'static', 'indirect', 'disabled', 'generated', 'transient', 'bad', 'not-found'] as const;

export type SystemctlState = { readonly known: true; readonly state: string } | { readonly known: false; readonly reason: string };

function read(states: readonly string[], answer: { readonly code: number; readonly out: string }): SystemctlState {
  const word = answer.out.trim();
  if (states.includes(word)) return { known: true, state: word };
  return { known: false, reason: word === '' ? `systemctl exited with status ${String(answer.code)} and said nothing` : word.split('\n').join('; ') };
}

/** `systemctl --user is-active UNIT`: the unit's state, or why the manager could not be asked. */
export const activeState = (answer: { readonly code: number; readonly out: string }): SystemctlState => read(ACTIVE_STATES, answer);

/** `systemctl --user is-enabled UNIT`: the unit file's state (read from disk, no manager needed), or why not. */
export const enabledState = (answer: { readonly code: number; readonly out: string }): SystemctlState => read(ENABLED_STATES, answer);
