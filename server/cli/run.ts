import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { deny } from '../../shared/decision.js';
import type { Runtime } from '../app/runtime.js';
import { MAX_LINE_BYTES } from './check.js';
import { readLines } from './lines.js';

/**
 * `oracle run` (SPEC §12): the same lines as `oracle check`, each driven through the whole
 * lifecycle with nobody present. T0 and T1 run and are audited; needs-approval is refused; deny
 * is denied. One result line per input line, in order.
 */
export async function runLines(runtime: Runtime, input: Readable, output: Writable): Promise<number> {
  for await (const line of readLines(input, MAX_LINE_BYTES)) {
    let result: unknown;
    if (line.kind !== 'text' || line.text.trim() === '') {
      const why = line.kind === 'too-long' ? `the line is longer than ${MAX_LINE_BYTES} bytes` : line.kind === 'not-utf8' ? 'the line is not valid UTF-8' : 'the line is empty';
      result = { ...deny('INPUT_INVALID', 'input', [why]), tool: null, args: null, executed: false };
    } else {
      let action: unknown;
      try {
        action = JSON.parse(line.text);
      } catch (e) {
        action = { malformed: e instanceof Error ? e.message : 'parse error' };
      }
      result = await runtime.run(action);
    }
    if (!output.write(JSON.stringify(result) + '\n')) await once(output, 'drain');
  }
  return 0;
}
