import { homedir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { loadBashParser } from '../adapters/bash-parser.js';
import { answerHook, type HookAnswer } from '../hook/claude-code.js';
import { openRuntime, type Runtime } from '../runtime.js';

/**
 * The hook with no gate running (SPEC §12): a gate opened on the home for this one call, which
 * can ask nobody. What needs a person is denied (or, for what ORACLE cannot judge, handed to
 * Claude Code's own prompt), and the answer says a running gate would ask the phone.
 */
export async function answerHeadless(payload: unknown, where: { home: string; policy: string | undefined; agent: string }): Promise<HookAnswer> {
  // This process parses one command and exits: V8's background re-compilation of the parser's
  // WebAssembly with its optimising tier only costs CPU and holds the exit back (a headless Bash
  // call went from ~1.3 s to ~0.7 s here), so the baseline compiler alone runs it. The
  // long-running gate keeps tier-up.
  setFlagsFromString('--liftoff-only');
  const parse = await loadBashParser();
  const runtime = await openWithRetry(where.home, where.policy, where.agent);
  try {
    return await answerHook(payload, {
      canAsk: false,
      parse,
      userHome: homedir(),
      authorizeCall: (call) => runtime.authorizeCall(call, 0, where.agent),
      taint: (session, read) => {
        runtime.taint(session, read);
      },
      confirm: (callId) => {
        runtime.confirmCall(callId);
      },
      record: (call) => runtime.recordCall(call, where.agent),
    });
  } finally {
    await runtime.close();
  }
}

/** Parallel tool calls each open the gate briefly; one at a time per home (the audit chain). */
async function openWithRetry(home: string, policy: string | undefined, actor: string): Promise<Runtime> {
  for (let attempt = 0; ; attempt++) {
    try {
      // Claude Code runs the tools itself: this runtime only judges, so it probes and spawns nothing.
      return await openRuntime({ home, policy, actor, runs: false });
    } catch (e) {
      if (attempt >= 40 || !(e instanceof Error) || !e.message.includes('another ORACLE process')) throw e;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 100));
    }
  }
}
