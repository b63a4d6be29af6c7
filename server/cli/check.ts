import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { deny, type Decision } from '../../shared/decision.js';
import { evaluate } from '../core/decide/decide.js';
import { readLines, type Line } from './lines.js';
import type { DecideContext } from '../core/decide/context.js';

export const MAX_LINE_BYTES = 1_048_576;

export type CheckLine = Decision & {
  readonly tool: string | null;
  readonly args: Readonly<Record<string, unknown>> | null;
};

/** One input line → one output line, whatever the line holds (SPEC §12). Never throws. */
export function checkLine(input: Line, ctx: DecideContext): CheckLine {
  if (input.kind === 'too-long') return malformed(`the line is longer than ${MAX_LINE_BYTES} bytes`);
  if (input.kind === 'not-utf8') return malformed('the line is not valid UTF-8');
  const line = input.text;
  if (line.trim() === '') return malformed('the line is empty');
  let action: unknown;
  try {
    action = JSON.parse(line);
  } catch (e) {
    return malformed(`the line is not JSON: ${e instanceof Error ? e.message : 'parse error'}`);
  }
  const { decision, tool, args } = evaluate(action, ctx);
  return { ...decision, tool, args };
}

function malformed(reason: string): CheckLine {
  return { ...deny('INPUT_INVALID', 'input', [reason]), tool: null, args: null };
}

/**
 * `oracle check`: JSON lines in, one decision per line out, in order. Output respects
 * back-pressure so 10,000 lines never pile up in memory.
 */
export async function runCheck(ctx: DecideContext, input: Readable, output: Writable): Promise<number> {
  for await (const line of readLines(input, MAX_LINE_BYTES)) {
    const text = JSON.stringify(checkLine(line, ctx)) + '\n';
    if (!output.write(text)) await once(output, 'drain');
  }
  return 0;
}
