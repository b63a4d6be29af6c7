import type { ProvenanceEntry } from '../../../shared/provenance.js';

/**
 * Claude Code tool calls → ORACLE actions (SPEC §11). Pure: the payload comes in, the actions the
 * gate must judge come out (the strictest decision wins), or Bash to analyse with the parser, or
 * a refusal. Unknown tools are denied.
 */
export interface HookPayload {
  readonly session_id?: unknown;
  readonly cwd?: unknown;
  readonly hook_event_name?: unknown;
  readonly tool_name?: unknown;
  readonly tool_input?: unknown;
  readonly tool_response?: unknown;
}

export interface GateAction {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}

export type Mapped =
  | { readonly kind: 'actions'; readonly actions: readonly GateAction[] }
  | { readonly kind: 'bash'; readonly command: string }
  | { readonly kind: 'allow'; readonly reason: string }
  | { readonly kind: 'deny'; readonly reason: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * Our own MCP server gates every call itself; anything else behind `mcp__` is opaque to us. Only
 * the exact tools `oracle mcp` registers pass (tests/mcp/mcp.test.ts holds the two lists equal):
 * another server a user happened to name `oracle` may not borrow the pass for tools we never had.
 */
export const OWN_MCP_TOOLS: ReadonlySet<string> = new Set([
  'fs_read', 'fs_list', 'fs_write', 'fs_delete', 'exec_run', 'git_status', 'git_diff', 'git_log', 'git_commit', 'git_push', 'net_fetch', 'oracle_await',
]);
const isOwnMcp = (tool: string): boolean => tool.startsWith('mcp__oracle__') && OWN_MCP_TOOLS.has(tool.slice('mcp__oracle__'.length));

export function mapToolCall(payload: HookPayload): Mapped {
  const tool = str(payload.tool_name);
  const input = obj(payload.tool_input);
  const cwd = str(payload.cwd);
  const path = (key: string) => str(input[key]);
  const need = (key: string): string | undefined => path(key);
  switch (tool) {
    case 'Bash': {
      const command = str(input['command']);
      return command === undefined ? { kind: 'deny', reason: 'Bash without a command' } : { kind: 'bash', command };
    }
    case 'Read':
    case 'NotebookRead': {
      const p = need('file_path') ?? need('notebook_path');
      return p === undefined ? deny(tool) : one('fs.read', { path: p });
    }
    case 'Write': {
      const p = need('file_path');
      return p === undefined ? deny(tool) : one('fs.write', { path: p, content: str(input['content']) ?? '' });
    }
    case 'Edit': {
      const p = need('file_path');
      return p === undefined ? deny(tool) : one('fs.write', { path: p, content: str(input['new_string']) ?? '' });
    }
    case 'MultiEdit': {
      const p = need('file_path');
      const edits = Array.isArray(input['edits']) ? input['edits'].map((e) => str(obj(e)['new_string']) ?? '') : [];
      return p === undefined ? deny(tool) : one('fs.write', { path: p, content: edits.join('\n') });
    }
    case 'NotebookEdit': {
      const p = need('notebook_path');
      return p === undefined ? deny(tool) : one('fs.write', { path: p, content: str(input['new_source']) ?? '' });
    }
    case 'Glob':
    case 'Grep':
    case 'LS':
      // A search reads the tree it searches: a listing of that directory, inside the scopes.
      return one('fs.list', { path: path('path') ?? cwd ?? '' });
    case 'WebFetch': {
      const url = str(input['url']);
      return url === undefined ? deny(tool) : one('net.fetch', { url, method: 'GET' });
    }
    case 'WebSearch': {
      // The query leaves through Anthropic's API, which runs the search.
      const query = str(input['query']);
      return query === undefined ? deny(tool) : one('net.fetch', { url: 'https://api.anthropic.com/', method: 'POST', body: query });
    }
    case 'Task':
    case 'Agent':
      return one('agent.delegate', { description: str(input['description']) ?? '', prompt: str(input['prompt']) ?? '', ...(str(input['subagent_type']) === undefined ? {} : { subagent_type: str(input['subagent_type']) }) });
    case 'TodoWrite':
    case 'ExitPlanMode':
      // Bookkeeping inside the agent: no side effect on the machine.
      return { kind: 'allow', reason: `${tool} has no side effect outside the agent` };
    case undefined:
      return { kind: 'deny', reason: 'the payload names no tool' };
    default:
      if (isOwnMcp(tool)) return { kind: 'allow', reason: 'ORACLE’s own MCP server gates this call itself' };
      return { kind: 'deny', reason: `ORACLE does not know the tool \`${tool}\`; unknown tools are denied` };
  }
}

function one(tool: string, args: Record<string, unknown>): Mapped {
  return { kind: 'actions', actions: [{ tool, args }] };
}

function deny(tool: string): Mapped {
  return { kind: 'deny', reason: `${tool} without the path or URL it acts on` };
}

/** PostToolUse: what the agent just read that taints its session (SPEC §4). */
export function readProvenance(payload: HookPayload): ProvenanceEntry[] {
  const tool = str(payload.tool_name);
  const input = obj(payload.tool_input);
  if (tool === 'WebFetch') return [{ kind: 'external', source: str(input['url']) ?? 'a web page' }];
  if (tool === 'WebSearch') return [{ kind: 'external', source: `web search: ${str(input['query']) ?? ''}` }];
  if (tool === 'Read') {
    const p = str(input['file_path']) ?? '';
    if (/(?:^|\/)(?:node_modules|vendor|third_party|\.venv|site-packages|bower_components)\//u.test(p)) return [{ kind: 'local_foreign', source: p }];
  }
  if (tool !== undefined && tool.startsWith('mcp__') && !isOwnMcp(tool)) return [{ kind: 'external', source: tool }];
  return [];
}
