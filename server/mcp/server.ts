import { randomBytes } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { z } from 'zod';
import { GATED, MCP_TOOLS, PATH, actionArgs, inFolder, inputSchemaOf } from './tools.js';
import { EDIT_TOOL, MAX_EDITS } from '../core/tools/edit-as-write.js';
import { toolResult } from './result.js';
import { MAX_ACTION_WAIT_SECONDS } from '../../shared/action-wait.js';
import { defaultCwd } from './default-cwd.js';
import { GateUnavailable, type McpGate } from './gate.js';

export interface McpOptions {
  readonly home?: string | undefined;
  readonly policy?: string | undefined;
  /** The principal every call acts as; its ceiling is `principals.agents.<agent>` (SPEC §3). */
  readonly agent: string;
  /** How long a needs-approval call waits for a person before it returns the approval id. */
  readonly waitMs: number;
}

const VERSION = '0.1.0';

/** What a model is told at `initialize` (SPEC §4, §7, §11): how the gate answers and how to wait. */
export const INSTRUCTIONS = [
  'Every tool here is gated by ORACLE, a permission gate on this computer; the person who runs it wrote its policy.',
  'Each call is judged before it runs and answered in one of three ways.',
  'Allowed: it ran; reads (T0) just run, changes (T1) run and can be undone by the person (the undo id is in the result).',
  'Denied: the result is an error that names the rule and the reason; asking again the same way will be denied again.',
  'Needs a person (T2, T3 on the desktop only): the call waits for them to approve it on their desktop or phone (with a progress token, progress is reported every 5 s while it waits); if nobody answered in time the result gives an approval id: call oracle_await with it to wait again, and do not retry the call itself.',
  "After the session reads content from outside the person's projects (a fetched page, a dependency), it is tainted: later changes need a person, one tier higher.",
  'oracle_allowed lists the folders, programs and hosts the policy gives this agent: call it first to know where to work.',
  'term_write types one line into a terminal the person opened for you (`oracle term open NAME`), asked every time; term_read shows what the terminal prints, and reading it taints the session.',
].join(' ');

/**
 * The server with every gated tool registered; exported for in-process use. `settle` waits (up
 * to a bound) for the calls still running.
 */
export function createMcpServer(gate: McpGate, options: Pick<McpOptions, 'agent' | 'waitMs'>): { server: McpServer; settle: (ms: number) => Promise<void>; withdrawAll: () => void } {
  // Where a relative path resolves: the folder the host started this server in.
  const base = process.cwd();
  const server = new McpServer({ name: 'oracle', version: VERSION }, { instructions: `${INSTRUCTIONS} Relative paths resolve against \`${base}\`, the folder this server was started in.` });
  // A call ends when the host cancels it (`notifications/cancelled`) or goes away: either withdraws
  // the action from the gate, which kills its job and writes a `cancelled` record.
  const closing = new AbortController();
  const withdrawnBy = (extra: { signal: AbortSignal }): AbortSignal => AbortSignal.any([extra.signal, closing.signal]);
  const running = new Set<Promise<CallToolResult>>();
  const track = (call: Promise<CallToolResult>, extra?: Progressing): Promise<CallToolResult> => {
    running.add(call);
    const stop = extra === undefined ? () => undefined : reportProgress(extra);
    void call.finally(() => {
      stop();
      running.delete(call);
    });
    return call;
  };
  // One session per connection: what it reads (a fetched page, a dependency's files) taints it (SPEC §4, §11).
  const session = `mcp-${randomBytes(8).toString('hex')}`;
  for (const def of MCP_TOOLS) {
    server.registerTool(def.name, { description: def.description, inputSchema: inputSchemaOf(def), annotations: def.hints }, (input: Record<string, unknown>, extra) =>
      track(
        guarded(async () => {
          const args = actionArgs(def, input, base);
          if (def.tool === 'exec.run' && args['cwd'] === undefined) {
            const cwd = defaultCwd(base, await gate.allowed(options.agent));
            if (cwd !== undefined) args['cwd'] = cwd;
          }
          return toolResult(await gate.submit({ tool: def.tool, args, session }, options.waitMs, options.agent, withdrawnBy(extra)), gate.canAsk);
        }),
        extra,
      ),
    );
  }
  // An edit is judged (and shown to the person) as the exact file it leaves: core/tools/edit-as-write.ts.
  server.registerTool(
    'fs_edit',
    {
      description: `Edit a text file by exact string replacement: each \`old_string\` must occur exactly once (or set \`replace_all\`), edits apply in order, and the gate judges the whole new file like fs_write (undoable; a person sees it as a diff when one is asked). If the file changes before the edit lands, nothing is written.${GATED}`,
      inputSchema: z.strictObject({
        path: z.string().describe(PATH),
        edits: z
          .array(
            z.strictObject({
              old_string: z.string().describe('the exact text to replace, as it is in the file (an empty one only creates an absent or empty file)'),
              new_string: z.string().describe('the text to put in its place'),
              replace_all: z.boolean().optional().describe('replace every occurrence (default: exactly one must exist)'),
            }),
          )
          .min(1)
          .max(MAX_EDITS)
          .describe('the replacements, applied in order'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    ({ path, edits }, extra) => track(guarded(async () => toolResult(await gate.submit({ tool: EDIT_TOOL, args: { path: inFolder(base, path), edits }, session }, options.waitMs, options.agent, withdrawnBy(extra)), gate.canAsk)), extra),
  );
  server.registerTool(
    'oracle_await',
    {
      description:
        'Wait for a person to answer an approval a gated tool returned, then run the action if approved (SPEC §7); if the person has not answered yet, the result says so and you may call it again. Once the action ran, calling it again with the same id returns the same result (for 10 minutes) and never runs it twice, so a call cut off by a timeout loses nothing. Many hosts give up on a call after about 60 s: keep `wait` under that unless your host follows progress.',
      inputSchema: z.strictObject({
        approval_id: z.string().max(256).describe('the approval id a gated tool returned with its pending answer'),
        wait: z.number().min(0).max(MAX_ACTION_WAIT_SECONDS).optional().describe('seconds to wait for the person (default 30)'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    ({ approval_id, wait }, extra) =>
      track(
        guarded(async () => {
          // A cancelled await (or a host gone) stops waiting; the card stays for the person.
          const result = await gate.continueAction(approval_id, (wait ?? 30) * 1000, options.agent, withdrawnBy(extra));
          return result === undefined ? failure(`unknown approval \`${approval_id}\` for agent \`${options.agent}\`: no card waits with that id, and no action that ran after one in the last 10 minutes`) : toolResult(result, gate.canAsk);
        }),
        extra,
      ),
  );
  server.registerTool(
    'oracle_allowed',
    {
      description:
        'What this agent may use, from the policy the person wrote: the folders (scopes) with their mode (ro: read only, rw: read and write), the names always refused (deny_always), the programs with their allow/confirm/deny rules, the hosts egress may reach, the capabilities of this agent and, when it has secret.read, the names of the stored secrets it may name (never their values), and whether this session has read content from outside the person’s projects (tainted). Every call is still judged; this tells where to look, not what will be allowed.',
      inputSchema: z.strictObject({}),
      annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    },
    () =>
      track(
        guarded(async () => {
          const view = await gate.allowed(options.agent, session);
          return { content: [{ type: 'text', text: JSON.stringify(view, null, 2) }], structuredContent: { ...view } };
        }),
      ),
  );
  server.registerTool(
    'oracle_propose_policy',
    {
      description:
        'Propose a change to the policy the person wrote: give the whole new policy file (YAML, as oracle_allowed describes it) and why. It is kept as a candidate with what it changes (which folders, programs, hosts and agents gain or lose what) and never takes effect by itself: only the person activates it, at their desktop. Errors in the file are returned line by line.',
      inputSchema: z.strictObject({ policy: z.string().min(1).max(262_144).describe('The whole proposed policy file, YAML'), reason: z.string().max(2000).describe('Why the change is needed, shown to the person') }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    ({ policy, reason }) =>
      track(
        guarded(async () => {
          const answer = await gate.propose(policy, reason);
          const ok = typeof answer['candidate'] === 'object';
          const lost = ok ? losses(answer['candidate']) : [];
          // A partial file (only the new program) drops everything else: said first, not left in the list (MCP probe, session 36).
          const warning = lost.length === 0 ? '' : `\nNote: this candidate also REMOVES ${String(lost.length)} thing${lost.length === 1 ? '' : 's'} the policy has now (${lost.slice(0, 5).join('; ')}${lost.length > 5 ? '; …' : ''}). A proposal is the whole policy file: if you meant only to add, propose again with everything that is there kept (oracle_allowed lists the scopes, deny_always names, programs and hosts).`;
          return { content: [{ type: 'text', text: ok ? `Kept as a candidate; it takes effect only when the person activates it on the desktop.${warning}\n${JSON.stringify(answer['candidate'], null, 2)}` : `The proposal was refused:\n${JSON.stringify(answer, null, 2)}` }], structuredContent: { ...answer }, ...(ok ? {} : { isError: true }) };
        }),
      ),
  );
  const settle = async (ms: number): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    await Promise.race([Promise.allSettled([...running]).then(() => undefined), bound]);
    clearTimeout(timer);
  };
  return {
    server,
    settle,
    withdrawAll: () => {
      closing.abort();
    },
  };
}

/** What a handler needs to tell its host a call is still going (MCP progress, by the host's token). */
type Progressing = Pick<RequestHandlerExtra<ServerRequest, ServerNotification>, '_meta' | 'sendNotification'>;

/** How often a long call says it is still going, when the host asked for progress. */
const PROGRESS_EVERY_MS = 5000;

/**
 * While a call runs or waits for a person, a host that sent a progress token hears every 5 s that
 * it is still going (and can keep its timeout from firing: the SDK's `resetTimeoutOnProgress`).
 */
function reportProgress(extra: Progressing): () => void {
  const token = extra._meta?.progressToken;
  if (token === undefined) return () => undefined;
  const started = Date.now();
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    void extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: seconds, message: `still going after ${String(seconds)} s: running, or waiting for a person to answer on the desktop or a paired phone` } })
      .catch(() => undefined);
  }, PROGRESS_EVERY_MS);
  return () => {
    clearInterval(timer);
  };
}

/** What a candidate's changes take away (`effect: loses`), in the change list's own words. */
function losses(candidate: unknown): string[] {
  const changes = (candidate as { changes?: unknown } | null)?.changes;
  if (!Array.isArray(changes)) return [];
  return changes.flatMap((c: unknown) => {
    const change = c as { effect?: unknown; what?: unknown } | null;
    return change?.effect === 'loses' && typeof change.what === 'string' ? [change.what] : [];
  });
}

/** A handler never throws: a failure is a tool error the agent can read. */
async function guarded(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof GateUnavailable) return failure(`failed: ${e.message}`);
    return failure(`failed: internal error: ${e instanceof Error ? e.message : 'unknown'}`);
  }
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
