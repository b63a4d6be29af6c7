import { homedir } from 'node:os';
import { loadBashParser } from '../adapters/bash-parser.js';
import { nodeReadDir } from '../adapters/glob-reader.js';
import type { Runtime } from '../app/runtime.js';
import { answerHook, hookSession } from '../hook/claude-code.js';
import type { ClientProcess } from '../http/routes/actions.js';

/** Claude Code's hook as the running gate answers it, and how a client's agent is registered. */
export interface HookAnswers {
  /** One hook payload answered: over HTTPS (the http hook) and over the local channel alike. */
  claudeCodeHook(payload: unknown, agent: string, client: ClientProcess): Promise<Readonly<Record<string, unknown>>>;
  /** Registers the agent behind a client, so HALT reaches what it starts; returns the release. */
  registerClient(client: ClientProcess, session: string | undefined): () => void;
}

/** `ourPort`: the HTTPS listener's port (the http hook's side of the connection), once it is up. */
export function hookAnswers(runtime: Runtime, options: { readonly hookBudgetMs?: number | undefined; readonly ourPort: () => number }): HookAnswers {
  const registerClient = (client: ClientProcess, session: string | undefined): (() => void) =>
    client === undefined ? () => undefined : runtime.agents.register('pid' in client ? client : { peerPort: client.peerPort, ourPort: options.ourPort(), connection: client.connection }, session);
  const hookOutput = async (payload: unknown, agent: string): Promise<Readonly<Record<string, unknown>>> =>
    (
      await answerHook(
        payload,
        {
          canAsk: true,
          parser: loadBashParser,
          readDir: nodeReadDir,
          userHome: homedir(),
          authorizeCall: (call, waitMs) => runtime.authorizeCall(call, waitMs, agent),
          taint: (session, read) => {
            runtime.taint(session, read);
          },
          confirm: (callId, session) => runtime.confirmCall(callId, session),
          record: (call) => runtime.recordCall(call, agent),
        },
        options.hookBudgetMs,
      )
    ).output;
  return {
    registerClient,
    async claudeCodeHook(payload, agent, client) {
      // HALT reaches what this agent starts after this call (issue 13); placed before it is answered.
      const release = registerClient(client, hookSession(payload));
      try {
        return await hookOutput(payload, agent);
      } finally {
        release();
      }
    },
  };
}
