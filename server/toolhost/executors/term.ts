import type { ToolhostEnv } from '../env.js';
import { failed, type ExecutionResult, type PreparedAction } from '../types.js';

/**
 * term.write (seed 001): the one line a person approved, typed into the named terminal and
 * entered. Nothing is read back here: what it printed is term.read's, labelled foreign.
 */
export function termWrite(action: PreparedAction<'term.write'>, env: ToolhostEnv): ExecutionResult {
  const { session, text } = action.args;
  const written = env.terminals.writeLine(session, text);
  if (!written.ok) return failed(written.code, written.reason);
  return { ok: true, output: { session, bytes: written.value.bytes } };
}

/** term.read: the last lines the terminal shows, redacted (every stored secret, every known pattern). */
export async function termRead(action: PreparedAction<'term.read'>, env: ToolhostEnv): Promise<ExecutionResult> {
  const { session, lines } = action.args;
  const read = await env.terminals.read(session, lines);
  if (!read.ok) return failed(read.code, read.reason);
  return { ok: true, output: { session, text: env.redact(read.value.text, []), lines: read.value.lines, exited: read.value.exited } };
}
