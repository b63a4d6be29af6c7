import { homedir } from 'node:os';
import { join } from 'node:path';
import { loadBashParser } from '../adapters/bash-parser.js';
import { nodeReadDir } from '../adapters/glob-reader.js';
import { answerHook, type HookAnswer } from '../hook/claude-code.js';
import { openRuntime, type Runtime } from '../app/runtime.js';
import { cachedPolicyLoader } from '../adapters/policy-cache.js';
import { buildId } from '../adapters/build-id.js';
import { baselineWasmOnly, wasmFlagsChanged } from '../adapters/wasm-tier.js';

/** This build of the code: the installed hook bundle (or, run from source, this module's file). */
const CODE_ID = buildId(import.meta.url);

/**
 * The hook with no gate running (SPEC §12): a gate opened on the home for this one call, which
 * can ask nobody. What needs a person is denied (or, for what ORACLE cannot judge, handed to
 * Claude Code's own prompt), and the answer says a running gate would ask the phone.
 */
export async function answerHeadless(payload: unknown, where: { home: string; policy: string | undefined; agent: string }): Promise<HookAnswer> {
  const runtime = await openWithRetry(where.home, where.policy, where.agent);
  try {
    return await answerHook(payload, {
      canAsk: false,
      parser: () => {
        baselineWasmOnly();
        return loadBashParser();
      },
      userHome: homedir(),
      readDir: nodeReadDir,
      authorizeCall: (call) => runtime.authorizeCall(call, 0, where.agent),
      taint: (session, read) => {
        runtime.taint(session, read);
      },
      confirm: (callId, session) => runtime.confirmCall(callId, session),
      record: (call) => runtime.recordCall(call, where.agent),
    });
  } finally {
    await runtime.close();
  }
}

/** Whether a code cache made now would fit the next call (see wasm-tier.ts). */
export function cacheable(): boolean {
  return !wasmFlagsChanged();
}

/** Parallel tool calls each open the gate briefly; one at a time per home (the audit chain). */
async function openWithRetry(home: string, policy: string | undefined, actor: string): Promise<Runtime> {
  for (let attempt = 0; ; attempt++) {
    try {
      // Claude Code runs the tools itself: this runtime only judges, so it probes and spawns nothing.
      // The policy as the last call loaded it, while its text and this build are unchanged.
      return await openRuntime({ home, policy, actor, runs: false, loadPolicy: cachedPolicyLoader(join(home, 'data'), CODE_ID) });
    } catch (e) {
      if (attempt >= 40 || !(e instanceof Error) || !e.message.includes('another ORACLE process')) throw e;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 100));
    }
  }
}
