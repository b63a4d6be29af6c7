import { isAbsolute, posix, resolve } from 'node:path';
import { z } from 'zod';
import { lookupTool, type ToolName } from '../core/tools/registry.js';

/**
 * The gated tools `oracle mcp` offers (SPEC §11). Each MCP tool is one ORACLE tool: its arguments
 * become the action's `args` unchanged, and the gate (not this schema) decides. The schemas are the
 * registry's contracts, shown to the client with a meaning for every argument.
 */
export interface McpToolDef {
  readonly name: string;
  readonly tool: ToolName;
  readonly description: string;
  /** The contract's arguments this tool offers, each with what it means to a model. */
  readonly fields: Readonly<Record<string, string>>;
  readonly hints: { readonly readOnlyHint: boolean; readonly destructiveHint: boolean; readonly openWorldHint: boolean };
}

/** Lines of a page when a model does not say (as Claude Code's own Read). */
export const MCP_READ_LINES = 2000;

/** How every path argument reads: `actionArgs` resolves a relative one against the server's folder. */
const RELATIVE = 'a relative one resolves against the folder this MCP server was started in';
export const PATH = `an absolute path (${RELATIVE})`;
const REPO = `the repository’s working tree, an absolute path (${RELATIVE})`;
const READ = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;
const WRITE = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;
export const GATED = ' Gated by ORACLE: a denial says which rule refused it and why.';

export const MCP_TOOLS: readonly McpToolDef[] = [
  {
    name: 'fs_read',
    tool: 'fs.read',
    description: `Read a text file: its text exactly, a page at a time (${String(MCP_READ_LINES)} lines or 256 KiB unless \`limit\` says otherwise; a note after the text says where the next page starts). Files over 8 MiB and binary files are refused.${GATED}`,
    fields: { path: PATH, offset: 'the first line to read, counting from 1 (default 1)', limit: `how many lines to read at most (default ${String(MCP_READ_LINES)})` },
    hints: READ,
  },
  { name: 'fs_list', tool: 'fs.list', description: `List a directory: one entry per line, sorted, folders ending in \`/\`, links marked \`(link)\` (never followed), at most 2000 entries; a name that could be misread (a line break in it, a leading quote, bracket or space) is shown as a JSON string. Names the policy hides (\`.env\`, \`.git\`, …) are left out.${GATED}`, fields: { path: PATH }, hints: READ },
  {
    name: 'fs_search',
    tool: 'fs.search',
    description: `Find the lines holding a literal text in the text files under a folder (or in one file), as \`path:line: text\`. Skips what the policy hides, \`.git\`, and dependency folders (node_modules, vendor, …) unless the search starts inside one.${GATED}`,
    fields: {
      path: `the folder (or file) to search, an absolute path (${RELATIVE})`,
      text: 'the literal text to find (not a pattern)',
      glob: 'only files whose name matches, e.g. `*.ts`; with a `/`, matched against the path under the folder, e.g. `src/**/*.ts`',
      ignore_case: 'match regardless of case',
      limit: 'the most matching lines to return (default 100)',
    },
    hints: READ,
  },
  {
    name: 'fs_write',
    tool: 'fs.write',
    description: `Create or replace a file with the given text; undoable.${GATED}`,
    fields: { path: PATH, content: 'the whole new text of the file' },
    hints: WRITE,
  },
  {
    name: 'fs_mkdir',
    tool: 'fs.mkdir',
    description: `Create a folder and any missing folders above it (as \`mkdir -p\`); undo removes what it made while it is still empty.${GATED}`,
    fields: { path: PATH },
    hints: WRITE,
  },
  {
    name: 'fs_move',
    tool: 'fs.move',
    description: `Move or rename a file or folder to a path where nothing is yet (never over an existing one), into a folder that exists; undoable.${GATED}`,
    fields: { from: `what to move, an absolute path (${RELATIVE})`, to: `where it goes, an absolute path that does not exist yet (${RELATIVE})` },
    hints: WRITE,
  },
  {
    name: 'fs_delete',
    tool: 'fs.delete',
    description: `Delete a file or directory (moved aside, undoable); in a project a person approves it, unless it is a file this session wrote where nothing was and nobody changed since.${GATED}`,
    fields: { path: PATH },
    hints: { ...WRITE, destructiveHint: true },
  },
  {
    name: 'exec_run',
    tool: 'exec.run',
    description: `Run a program the policy names (oracle_allowed lists them; any other is refused), without a shell: the argv is checked against the program's grammar.${GATED}`,
    fields: {
      program: 'the program name alone, as the policy names it, e.g. `git` (its arguments go in `args`)',
      args: 'arguments, one per element (no shell parsing)',
      cwd: `working directory, an absolute path (${RELATIVE}; default: that folder when one of your scopes holds it, else an empty folder of the job’s own)`,
      timeout: 'seconds before the program is stopped',
    },
    hints: { ...WRITE, destructiveHint: true, openWorldHint: true },
  },
  { name: 'git_status', tool: 'git.status', description: `git status of a repository.${GATED}`, fields: { repo: REPO }, hints: READ },
  {
    name: 'git_diff',
    tool: 'git.diff',
    description: `git diff of a repository.${GATED}`,
    fields: { repo: REPO, staged: 'the index against HEAD instead of the working tree against the index' },
    hints: READ,
  },
  {
    name: 'git_log',
    tool: 'git.log',
    description: `Recent commits of a repository.${GATED}`,
    fields: { repo: REPO, limit: 'how many commits' },
    hints: READ,
  },
  {
    name: 'git_commit',
    tool: 'git.commit',
    description: `Commit in a repository; undoable. With \`paths\`, those files are staged and only they are committed; without, what is already staged is committed (and nothing, with an error, when nothing is).${GATED}`,
    fields: { repo: REPO, message: 'the commit message', paths: 'commit only these files: paths inside the repository, relative to it (as `git status` prints them) or absolute' },
    hints: WRITE,
  },
  {
    name: 'git_push',
    tool: 'git.push',
    description: `Push a branch to a remote; always a person's call, force-pushes are refused.${GATED}`,
    fields: { repo: REPO, remote: 'the remote’s name, e.g. `origin`', branch: 'the branch to push' },
    hints: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  },
  {
    name: 'net_fetch',
    tool: 'net.fetch',
    description: `Fetch a URL from a host the policy's egress list allows. Credentials you write yourself (Authorization, Cookie) are removed, and a request whose URL, headers or body hold a secret is refused: to authenticate, name a secret the person stored in \`secrets\` (e.g. \`{"Authorization": {"name": "github", "prefix": "Bearer "}}\`); the gate adds its value as it sends, a person approves each such request (the card names the secret, header and host), and the value never comes back to you.${GATED}`,
    fields: {
      url: 'an https or http URL',
      method: 'the HTTP method',
      headers: 'request headers, name to value',
      body: 'the request body, as text',
      secrets: 'header name to a stored secret sent as its value (https only, or plain http to a loopback address); `oracle_allowed` lists the names of the stored secrets',
    },
    hints: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  },
  {
    name: 'term_write',
    tool: 'term.write',
    description: `Type one line into a terminal a person opened with \`oracle term open NAME\`, then press Enter. A person approves every line (never remembered); a newline, a control character or an escape sequence is refused. Read what it printed with term_read.${GATED}`,
    fields: { session: 'the terminal’s name, as `oracle term list` shows it', text: 'the line, printable text only' },
    hints: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  },
  {
    name: 'term_read',
    tool: 'term.read',
    description: `What a terminal shows now: its last lines as text (secrets redacted). Its content came from programs, so reading it marks this session as having read untrusted content.${GATED}`,
    fields: { session: 'the terminal’s name', lines: 'how many of its last lines (default 100)' },
    hints: READ,
  },
];

/**
 * A tool's input schema, made from the tool's own contract (server/core/tools/registry.ts): the
 * limits a client is shown are the ones the gate enforces, no property goes undescribed, and no
 * other property is accepted (`additionalProperties: false`).
 */
export function inputSchemaOf(def: McpToolDef): z.ZodObject {
  const contract = lookupTool(def.tool)?.args;
  if (!(contract instanceof z.ZodObject)) throw new Error(`${def.tool} has no object contract to offer as ${def.name}`);
  const shape = contract.shape as Readonly<Record<string, z.ZodType>>;
  return z.strictObject(
    Object.fromEntries(
      Object.entries(def.fields).map(([key, meaning]) => {
        const field = shape[key];
        if (field === undefined) throw new Error(`${def.name}: \`${key}\` is not an argument of ${def.tool}`);
        return [key, field.describe(meaning)];
      }),
    ),
  );
}

/**
 * The action `args`: what the client sent, minus keys it left out (the contract fills defaults); a
 * read is a page. A relative path means the folder the host started this server in (`base`: its
 * project, for most hosts), never the gate's working directory (a gate run as a service has its
 * own); a commit's relative paths are the repository's (as git prints them). The gate judges the
 * absolute path either way.
 */
export function actionArgs(def: McpToolDef, input: Readonly<Record<string, unknown>>, base: string): Record<string, unknown> {
  const args = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  for (const spec of lookupTool(def.tool)?.paths ?? []) {
    const value = args[spec.key];
    if (spec.list !== true && typeof value === 'string') args[spec.key] = inFolder(base, value);
  }
  if (def.tool === 'fs.read' && args['limit'] === undefined) return { ...args, limit: MCP_READ_LINES };
  const repo = args['repo'];
  if (def.tool === 'git.commit' && typeof repo === 'string' && posix.isAbsolute(repo) && Array.isArray(args['paths'])) {
    return { ...args, paths: args['paths'].map((p: unknown) => (typeof p === 'string' && !posix.isAbsolute(p) ? posix.join(repo, p) : p)) };
  }
  return args;
}

/**
 * A path the model wrote, absolute: a relative one is taken from `base`. One starting with `~` is
 * passed on as written, for the gate to refuse (PATH_EXPANSION: paths are never expanded): joined
 * to the folder it had made a folder called `~` in the project, `rm -rf ~`'s favourite trap (MCP
 * probe, session 36). A file whose name starts with `~` is `./~name`.
 */
export function inFolder(base: string, path: string): string {
  return isAbsolute(path) || path.startsWith('~') ? path : resolve(base, path);
}
