import { MAX_ACTION_WAIT_SECONDS } from '../../shared/action-wait.js';

/** The longest `oracle mcp --wait` a call may hold its client for a person's answer (SPEC §7). */
export const MAX_WAIT_SECONDS = MAX_ACTION_WAIT_SECONDS;

/**
 * `--wait SECONDS` as milliseconds: absent means 0 (a needs-approval call returns its approval id
 * at once); anything but a number from 0 to MAX_WAIT_SECONDS is a usage error (undefined).
 */
export function parseWaitMs(text: string | undefined): number | undefined {
  if (text === undefined) return 0;
  if (!/^\d+(?:\.\d+)?$/u.test(text.trim())) return undefined;
  const seconds = Number(text);
  return seconds <= MAX_WAIT_SECONDS ? Math.round(seconds * 1000) : undefined;
}
