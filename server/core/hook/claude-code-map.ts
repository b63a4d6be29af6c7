import type { ProvenanceEntry } from '../../../shared/provenance.js';
import { editsOf, type TextEdit } from './edits.js';
import type { TreeSearch } from './tree-search.js';
import { claudeGrepSearch } from './tree-search-argv.js';
import { absoluteGlobFolder, claudePaths } from './claude-paths.js';

/**
 * Claude Code tool calls → ORACLE actions (SPEC §11). Pure: the payload comes in, and out comes
 * what the gate must judge (the actions, all judged; the strictest answer wins), Bash to analyse
 * with the parser, an allow for Claude Code's own bookkeeping, or a person's call. Every tool of
 * the pinned Claude Code version is classified here (tests/claude-code/cli-tools.test.ts asks the
 * real CLI for its list); anything unclassified goes to a person, never silently through.
 */
export interface HookPayload {
  readonly session_id?: unknown;
  readonly cwd?: unknown;
  readonly hook_event_name?: unknown;
  readonly tool_name?: unknown;
  readonly tool_input?: unknown;
  readonly tool_response?: unknown;
  readonly tool_use_id?: unknown;
}

export interface GateAction {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** The read searches the tree below its path: what it reaches is weighed too (tree-search.ts). */
  readonly search?: TreeSearch;
}

export type Mapped =
  /** `edits`: the write is an Edit/MultiEdit, judged as the file these edits leave (edits.ts). */
  | { readonly kind: 'actions'; readonly actions: readonly GateAction[]; readonly edits?: readonly TextEdit[] }
  | { readonly kind: 'bash'; readonly command: string }
  | { readonly kind: 'allow'; readonly reason: string }
  /** ORACLE cannot judge it from data: a person decides, on a card naming the tool and its input. */
  | { readonly kind: 'person'; readonly reason: string }
  | { readonly kind: 'deny'; readonly reason: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * Our own MCP server gates every call itself; anything else behind `mcp__` is opaque to us. Only
 * the exact tools `oracle mcp` registers pass (tests/mcp/mcp.test.ts holds the two lists equal):
 * another server a user happened to name `oracle` may not borrow the pass for tools we never had.
 */
export const OWN_MCP_TOOLS: ReadonlySet<string> = new Set([
  'fs_read', 'fs_list', 'fs_search', 'fs_write', 'fs_edit', 'fs_mkdir', 'fs_move', 'fs_delete', 'exec_run', 'git_status', 'git_diff', 'git_log', 'git_commit', 'git_push', 'net_fetch', 'term_write', 'term_read', 'oracle_await', 'oracle_allowed', 'oracle_propose_policy',
]);
const isOwnMcp = (tool: string): boolean => tool.startsWith('mcp__oracle__') && OWN_MCP_TOOLS.has(tool.slice('mcp__oracle__'.length));

/**
 * Tools whose only effect is on Claude Code's own state (its task list, plan mode, tool schemas,
 * messages between its own agents, its own background tasks), or that only show something to the
 * person at the terminal. They touch nothing ORACLE guards, so they run unasked (HALT still stops
 * them). Each with why.
 */
const OWN_STATE: Readonly<Record<string, string>> = {
  TodoWrite: 'its task list',
  TaskCreate: 'its task list',
  TaskGet: 'its task list',
  TaskList: 'its task list',
  TaskUpdate: 'its task list',
  TaskOutput: 'reading the output of a task it started',
  TaskStop: 'stopping a background task it started',
  KillShell: 'stopping a background shell it started',
  BashOutput: 'reading the output of a shell it started',
  ExitPlanMode: 'plan mode',
  EnterPlanMode: 'plan mode',
  ToolSearch: 'loading the schemas of its own tools',
  DeferredToolPlaceholder: 'a placeholder it never calls',
  ListAgents: 'listing its own agents',
  SendMessage: 'a message between its own agents',
  SendUserMessage: 'a message to you in its own window',
  AskUserQuestion: 'a question to you in its own window',
  ReportFindings: 'review findings shown in its own window',
  CronList: 'listing its own scheduled prompts',
  CronDelete: 'cancelling a prompt it scheduled',
};

/** Every tool name this map classifies (the CLI's own list is checked against it). */
export const CLASSIFIED_TOOLS: ReadonlySet<string> = new Set([
  ...Object.keys(OWN_STATE),
  'Bash', 'Monitor', 'Read', 'NotebookRead', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Glob', 'Grep', 'LS', 'WebFetch', 'WebSearch',
  'Task', 'Agent', 'Workflow', 'Skill', 'EnterWorktree', 'ExitWorktree', 'CronCreate', 'ScheduleWakeup', 'DesignSync',
]);

/** A skill or worktree name Claude Code accepts: `/`-separated segments of safe characters. */
const SAFE_NAME = /^(?:[A-Za-z0-9._-]+\/)*[A-Za-z0-9._-]+$/u;
const safeName = (name: string | undefined): name is string => name !== undefined && name.length <= 128 && SAFE_NAME.test(name) && !name.split('/').some((s) => s === '.' || s === '..');

/** Addresses SendMessage reaches beyond this session: a socket, a Remote Control bridge, a peer id. */
const PEER_ADDRESS = /^(?:uds|bridge|did):/u;

/** `home` is the user's home folder: Claude Code reads `~` in a path field as it. */
export function mapToolCall(payload: HookPayload, home?: string): Mapped {
  const paths = claudePaths(str(payload.cwd), home);
  const mapped = mapWith(payload, paths.of);
  return paths.failed === undefined ? mapped : { kind: 'deny', reason: paths.failed };
}

function mapWith(payload: HookPayload, pathOf: (raw: string) => string | undefined): Mapped {
  const tool = str(payload.tool_name);
  const input = obj(payload.tool_input);
  const cwd = str(payload.cwd);
  const field = (key: string) => str(input[key]);
  /** A path field as Claude Code reads it (claude-paths.ts). */
  const at = (key: string): string | undefined => {
    const raw = field(key);
    return raw === undefined ? undefined : pathOf(raw);
  };
  const remote = input['_host'];
  if (remote !== undefined && remote !== null && remote !== '') return { kind: 'person', reason: `${tool ?? 'the call'} runs on the attached machine \`${JSON.stringify(remote).slice(0, 80)}\`, which this gate does not see` };
  const attachments = input['attachments'];
  if (tool === 'SendUserMessage' && Array.isArray(attachments) && attachments.length > 0) {
    // Claude Code reads each attached file and, with an upload lane (Remote Control), uploads it.
    if (!attachments.every((a) => typeof a === 'string')) return { kind: 'person', reason: 'SendUserMessage attaches something other than file paths' };
    return { kind: 'actions', actions: attachments.map((a) => ({ tool: 'fs.read', args: { path: pathOf(a) ?? '' } })) };
  }
  if (tool === 'SendMessage' && PEER_ADDRESS.test(field('to')?.trim() ?? '')) {
    return { kind: 'person', reason: `SendMessage to \`${(field('to') ?? '').slice(0, 80)}\` hands work to another Claude session (maybe on another machine), outside this gate` };
  }
  if (tool !== undefined && Object.hasOwn(OWN_STATE, tool)) return { kind: 'allow', reason: `${tool} touches only Claude Code's own state (${OWN_STATE[tool] ?? ''})` };
  switch (tool) {
    case 'Bash':
    case 'Monitor': {
      // Monitor runs a long-lived script exactly like Bash runs a command.
      const command = field('command');
      return command === undefined ? { kind: 'deny', reason: `${tool} without a command` } : { kind: 'bash', command };
    }
    case 'Read':
    case 'NotebookRead': {
      const p = at('file_path') ?? at('notebook_path');
      return p === undefined ? deny(tool) : one('fs.read', { path: p });
    }
    case 'Write': {
      const p = at('file_path');
      return p === undefined ? deny(tool) : one('fs.write', { path: p, content: field('content') ?? '' });
    }
    case 'Edit':
    case 'MultiEdit': {
      // The content here is a placeholder: the gate judges the path, then the edits applied to
      // the file as it is now, and that whole new text is what is decided, audited and shown.
      const p = at('file_path');
      const edits = editsOf(tool, input);
      if (p === undefined) return deny(tool);
      if (edits === undefined) return { kind: 'deny', reason: `${tool} without an \`old_string\` and a \`new_string\` for every edit` };
      return { kind: 'actions', actions: [{ tool: 'fs.write', args: { path: p, content: edits.map((e) => e.new_string).join('\n') } }], edits };
    }
    case 'NotebookEdit': {
      const p = at('notebook_path');
      return p === undefined ? deny(tool) : one('fs.write', { path: p, content: field('new_source') ?? '' });
    }
    case 'Glob': {
      // Names only: a listing of the folder searched. An absolute pattern names that folder
      // itself, whatever `path` says (`/etc/**` lists /etc).
      // `path` is judged as well: the host decides which patterns are absolute (claude-paths.ts).
      const folder = absoluteGlobFolder(field('pattern'));
      const searched = at('path') ?? cwd ?? '';
      const named = folder === undefined ? undefined : pathOf(folder);
      return { kind: 'actions', actions: [named, searched].filter((p, i, all): p is string => p !== undefined && all.indexOf(p) === i).map((p) => ({ tool: 'fs.list', args: { path: p } })) };
    }
    case 'LS':
      // Names only: a listing of that directory, inside the scopes.
      return one('fs.list', { path: at('path') ?? cwd ?? '' });
    case 'Grep':
      // Prints (or confirms) lines of every file it reaches below the path: a read of that tree.
      return { kind: 'actions', actions: [{ tool: 'fs.read', args: { path: at('path') ?? cwd ?? '' }, search: claudeGrepSearch(field('glob')) }] };
    case 'WebFetch': {
      const url = field('url');
      return url === undefined ? deny(tool) : one('net.fetch', { url, method: 'GET' });
    }
    case 'WebSearch': {
      // The query leaves through Anthropic's API, which runs the search.
      const query = field('query');
      return query === undefined ? deny(tool) : one('net.fetch', { url: 'https://api.anthropic.com/', method: 'POST', body: query });
    }
    case 'Task':
    case 'Agent': {
      const delegate = { tool: 'agent.delegate', args: { description: field('description') ?? '', prompt: field('prompt') ?? '', ...(field('subagent_type') === undefined ? {} : { subagent_type: field('subagent_type') }) } };
      const isolation = input['isolation'];
      if (isolation === undefined) return { kind: 'actions', actions: [delegate] };
      // Its own worktree is the `git worktree add` EnterWorktree makes, judged by the git grammar.
      if (isolation === 'worktree' && cwd !== undefined) return { kind: 'actions', actions: [delegate, { tool: 'exec.run', args: { program: 'git', args: ['worktree', 'add', `${cwd}/.claude/worktrees/agent`], cwd } }] };
      if (isolation === 'remote') return { kind: 'person', reason: 'Agent with isolation "remote" runs the sub-agent in a cloud environment on a copy of this repository, outside this gate' };
      return { kind: 'person', reason: `Agent with isolation ${JSON.stringify(isolation).slice(0, 80)}, which ORACLE does not know` };
    }
    case 'Workflow': {
      // A workflow script starts sub-agents: delegation, with what runs as what is delegated. A
      // script file goes before an inline script, which goes before a named workflow.
      const file = at('scriptPath');
      const resumed = field('resumeFromRunId') === undefined ? '' : ` (resuming run ${(field('resumeFromRunId') ?? '').slice(0, 80)})`;
      const delegate = { tool: 'agent.delegate', args: { description: `${field('name') ?? 'workflow'}${resumed}`, prompt: file === undefined ? (field('script') ?? field('name') ?? '') : `the workflow script in ${file}` } };
      return { kind: 'actions', actions: file === undefined ? [delegate] : [{ tool: 'fs.read', args: { path: file } }, delegate] };
    }
    case 'Skill': {
      // A skill is instructions read from its folder; a project skill lives in the project.
      const name = field('skill');
      if (!safeName(name) || cwd === undefined) return { kind: 'deny', reason: 'Skill without a plain skill name and a working directory' };
      return one('fs.read', { path: `${cwd}/.claude/skills/${name}/SKILL.md` });
    }
    case 'EnterWorktree': {
      // A new worktree is `git worktree add` in the project (a git write, judged by the git grammar);
      // switching into an existing one only reads it.
      const existing = at('path');
      if (existing !== undefined) return one('fs.list', { path: existing });
      const name = field('name');
      if (cwd === undefined || (name !== undefined && !safeName(name))) return { kind: 'deny', reason: 'EnterWorktree without a plain name and a working directory' };
      return one('exec.run', { program: 'git', args: ['worktree', 'add', `${cwd}/.claude/worktrees/${name ?? 'worktree'}`], cwd });
    }
    case 'ExitWorktree':
      if (field('action') === 'keep') return { kind: 'allow', reason: 'ExitWorktree keeping the worktree only changes Claude Code’s working directory' };
      return { kind: 'person', reason: 'ExitWorktree removes a worktree (and maybe its branch) whose path only Claude Code knows' };
    case 'CronCreate':
    case 'ScheduleWakeup':
      return { kind: 'person', reason: `${tool} schedules work to run later without anyone at the keyboard` };
    case 'DesignSync':
      return { kind: 'person', reason: 'DesignSync reads and writes your claude.ai design projects over the network' };
    case undefined:
      return { kind: 'deny', reason: 'the payload names no tool' };
    default:
      if (isOwnMcp(tool)) return { kind: 'allow', reason: 'ORACLE’s own MCP server gates this call itself' };
      if (tool.startsWith('mcp__')) return { kind: 'person', reason: `\`${tool}\` belongs to an MCP server ORACLE does not gate` };
      return { kind: 'person', reason: `ORACLE has not classified the tool \`${tool}\`` };
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

/**
 * The tools whose PostToolUse call ORACLE needs (the matcher `oracle integrate` writes): those that
 * can taint the session, and Bash, whose report of a finished call makes its kept changes undoable.
 */
export const POST_TOOL_MATCHER = 'Bash|Read|WebFetch|WebSearch|mcp__.*';
