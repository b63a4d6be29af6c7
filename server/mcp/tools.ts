import { z } from 'zod';
import type { ToolName } from '../core/tools/registry.js';

/**
 * The gated tools `oracle mcp` offers (SPEC §11). Each MCP tool is one ORACLE tool: its arguments
 * become the action's `args` unchanged, and the gate (not this schema) decides. The schemas only
 * give the client the argument types; every limit lives in the tool registry's contract.
 */
export interface McpToolDef {
  readonly name: string;
  readonly tool: ToolName;
  readonly description: string;
  readonly shape: Readonly<Record<string, z.ZodType>>;
  readonly hints: { readonly readOnlyHint: boolean; readonly destructiveHint: boolean; readonly openWorldHint: boolean };
}

const path = z.string().describe('an absolute path (relative paths resolve against the gate’s working directory)');
const repo = z.string().describe('the repository’s working tree, an absolute path');
const READ = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;
const WRITE = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;
const GATED = ' Gated by ORACLE: a denial says which rule refused it and why.';

export const MCP_TOOLS: readonly McpToolDef[] = [
  { name: 'fs_read', tool: 'fs.read', description: `Read a text file.${GATED}`, shape: { path }, hints: READ },
  { name: 'fs_list', tool: 'fs.list', description: `List a directory (JSON entries).${GATED}`, shape: { path }, hints: READ },
  {
    name: 'fs_write',
    tool: 'fs.write',
    description: `Create or replace a file with the given text; undoable.${GATED}`,
    shape: { path, content: z.string() },
    hints: WRITE,
  },
  {
    name: 'fs_delete',
    tool: 'fs.delete',
    description: `Delete a file or directory (moved aside, undoable); in a project a person approves it.${GATED}`,
    shape: { path },
    hints: { ...WRITE, destructiveHint: true },
  },
  {
    name: 'exec_run',
    tool: 'exec.run',
    description: `Run a program the policy names, without a shell: the argv is checked against the program's grammar.${GATED}`,
    shape: {
      program: z.string().describe('the program name as the policy names it, e.g. `git`'),
      args: z.array(z.string()).optional().describe('arguments, one per element (no shell parsing)'),
      cwd: z.string().optional().describe('working directory, an absolute path'),
      timeout: z.number().int().optional().describe('seconds, 1 to 3600 (default 60)'),
    },
    hints: { ...WRITE, destructiveHint: true, openWorldHint: true },
  },
  { name: 'git_status', tool: 'git.status', description: `git status of a repository.${GATED}`, shape: { repo }, hints: READ },
  {
    name: 'git_diff',
    tool: 'git.diff',
    description: `git diff of a repository (staged: the index against HEAD).${GATED}`,
    shape: { repo, staged: z.boolean().optional() },
    hints: READ,
  },
  {
    name: 'git_log',
    tool: 'git.log',
    description: `Recent commits of a repository.${GATED}`,
    shape: { repo, limit: z.number().int().optional().describe('how many commits (default 20)') },
    hints: READ,
  },
  {
    name: 'git_commit',
    tool: 'git.commit',
    description: `Commit in a repository (only the given paths when named); undoable.${GATED}`,
    shape: { repo, message: z.string(), paths: z.array(z.string()).optional() },
    hints: WRITE,
  },
  {
    name: 'git_push',
    tool: 'git.push',
    description: `Push a branch to a remote; always a person's call, force-pushes are refused.${GATED}`,
    shape: { repo, remote: z.string(), branch: z.string() },
    hints: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  },
  {
    name: 'net_fetch',
    tool: 'net.fetch',
    description: `Fetch a URL from a host the policy's egress list allows.${GATED}`,
    shape: {
      url: z.string(),
      method: z.string().optional().describe('HTTP method (default GET)'),
      headers: z.record(z.string(), z.string()).optional(),
      body: z.string().optional(),
    },
    hints: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  },
];

/** The action `args`: what the client sent, minus keys it left out (the contract fills defaults). */
export function actionArgs(input: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
}
