/**
 * The longest one request may wait for a person (REST `?wait=`, the local socket, `oracle mcp`);
 * then the caller waits again. A file of its own, so the hook's bundle does not take in zod.
 */
export const MAX_ACTION_WAIT_SECONDS = 300;
