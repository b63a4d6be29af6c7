import * as z from 'zod';
import type { Capability } from '../../../shared/capabilities.js';
import type { Tier } from '../../../shared/tiers.js';
import { compileFileGlob } from '../paths/file-glob.js';

/**
 * The closed tool registry (SPEC §4). Each contract fixes the capabilities the tool needs, whether
 * the toolhost can undo it, the lowest tier any policy may give it, and which arguments are paths
 * (every one of them goes through canonicalisation before policy).
 */
export interface ToolContract {
  readonly name: ToolName;
  readonly capabilities: readonly Capability[];
  readonly reversible: boolean;
  /** A policy tier rule below this floor is a start-up error (a tool/policy mismatch). */
  readonly floor: Tier;
  readonly args: z.ZodType<Record<string, unknown>>;
  /** Arguments holding paths, and whether the tool writes there. */
  readonly paths: readonly PathArg[];
  /**
   * The policy's tier rules for `fs.write` also apply to this tool's first path: whatever changes
   * what a file holds (a copy onto it, a move, an in-place edit, a link in its place) is weighed
   * like writing it, so `cp x package.json` is not a way around a rule on package.json.
   */
  readonly writesContent?: boolean;
  /**
   * Runs inside the gate's own process and changes nothing (no file, no process, no network), so
   * the lifecycle may record it after it ran, before its result leaves (core/lifecycle/run-action.ts).
   */
  readonly readsOnly?: boolean;
}

export interface PathArg {
  readonly key: string;
  readonly access: 'read' | 'write' | 'delete';
  readonly optional?: boolean;
  /** The argument is a list of paths, each checked on its own. */
  readonly list?: boolean;
}

/** An exec.run's `timeout` in seconds: its default and the most it may ask for. */
export const EXEC_TIMEOUT_S = { default: 60, max: 3600 } as const;
/** The most characters one fs.write (and so one edit) writes. */
export const MAX_WRITE_CHARS = 1_000_000;
const text = z.string().max(MAX_WRITE_CHARS);
/** Secret names as the secret store accepts them. */
export const SECRET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/u;
/**
 * Variables a secret may be put in: plain upper-case names, never one that changes how a program
 * or its loader behaves (PATH, HOME, LD_PRELOAD, NODE_OPTIONS, GIT_*, …).
 */
/** A variable a secret may be injected as: never one that changes how programs start. */
export const ENV_NAME = /^(?!(?:PATH|HOME|TMPDIR|SHELL|ENV|BASH_ENV|IFS|PS4|LANG|TERM|NODE_OPTIONS|PERL5OPT|RUBYOPT|PYTHONSTARTUP)$)(?!(?:LD_|DYLD_|GIT_|PYTHON|NODE_|NPM_CONFIG_|BASH_FUNC_|LC_))[A-Z_][A-Z0-9_]{0,63}$/u;
const name = z.string().min(1).max(255);
/** An HTTP header name (RFC 9110 token) a secret may be sent in. */
const FETCH_HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/u;
/**
 * What may precede a secret in its header: an auth scheme word and one space, or nothing. Never
 * free text: a prefix is sent as written, so it must not be able to carry a value of its own.
 */
const HEADER_PREFIX = /^(?:[A-Za-z][A-Za-z0-9-]{0,23} )?$/u;

export const TOOL_NAMES = [
  'fs.read',
  'fs.list',
  'fs.search',
  'fs.write',
  'fs.delete',
  'fs.mkdir',
  'fs.touch',
  'fs.copy',
  'fs.move',
  'fs.link',
  'fs.edit',
  'exec.run',
  'exec.run_with_secrets',
  'git.status',
  'git.diff',
  'git.log',
  'git.commit',
  'git.push',
  'net.fetch',
  'agent.delegate',
  'term.write',
  'term.read',
  'input.synth',
  'sys.settings',
] as const;

export type ToolName = (typeof TOOL_NAMES)[number];

const read = (key: string): PathArg => ({ key, access: 'read' });
const write = (key: string): PathArg => ({ key, access: 'write' });

/**
 * Each tool's argument schema is built on first use: a process that judges one call (the headless
 * hook, SPEC §11) would otherwise build all of them at start for the one it checks.
 */
type ContractSpec = Omit<ToolContract, 'name' | 'args'> & { readonly args: () => ToolContract['args'] };

const CONTRACTS = {
  'fs.read': {
    capabilities: ['fs.read'],
    reversible: true,
    floor: 'T0',
    readsOnly: true,
    // A page of the text (server/core/tools/text-page.ts): from line `offset`, at most `limit` lines.
    args: () => z.strictObject({ path: z.string(), offset: z.number().int().min(1).max(100_000_000).optional(), limit: z.number().int().min(1).max(100_000).optional() }),
    paths: [read('path')],
  },
  'fs.list': { capabilities: ['fs.read'], reversible: true, floor: 'T0', readsOnly: true, args: () => z.strictObject({ path: z.string() }), paths: [read('path')] },
  'fs.search': {
    capabilities: ['fs.read'],
    reversible: true,
    floor: 'T0',
    readsOnly: true,
    args: () => z.strictObject({
      path: z.string(),
      text: z.string().min(1).max(1024),
      // Read by file-glob.ts: a spelling it would not read as written is refused here, before anything runs.
      glob: z
        .string()
        .min(1)
        .max(256)
        .superRefine((glob, ctx) => {
          const compiled = compileFileGlob(glob);
          if (!compiled.ok) ctx.addIssue({ code: 'custom', message: compiled.reason });
        })
        .optional(),
      ignore_case: z.boolean().optional(),
      limit: z.int().min(1).max(1000).optional(),
    }),
    paths: [read('path')],
  },
  'fs.write': {
    capabilities: ['fs.write'],
    reversible: true,
    floor: 'T1',
    // `expect_before`: what the file must hold when the write lands (`absent`, or its digest), as
    // when the gate turned an edit into this write (fs.replace): otherwise FS_CHANGED, nothing written.
    args: () => z.strictObject({ path: z.string(), content: text, expect_before: z.string().regex(/^(?:absent|sha256:[0-9a-f]{64})$/u).optional() }),
    paths: [write('path')],
  },
  'fs.delete': { capabilities: ['fs.delete'], reversible: true, floor: 'T1', args: () => z.strictObject({ path: z.string() }), paths: [{ key: 'path', access: 'delete' }] },
  // Changes an agent's own runtime makes (Claude Code's Bash: mkdir, touch, cp, mv, ln -s, sed -i).
  // The gate judges them and keeps what they change for undo before the agent runs them; ORACLE's
  // own toolhost writes through fs.write and fs.delete (see toolhost/boundary.ts).
  'fs.mkdir': { capabilities: ['fs.write'], reversible: true, floor: 'T1', args: () => z.strictObject({ path: z.string() }), paths: [write('path')] },
  'fs.touch': { capabilities: ['fs.write'], reversible: true, floor: 'T1', args: () => z.strictObject({ path: z.string() }), paths: [write('path')] },
  'fs.copy': {
    capabilities: ['fs.read', 'fs.write'],
    reversible: true,
    floor: 'T1',
    args: () => z.strictObject({ to: z.string(), from: z.string() }),
    paths: [write('to'), read('from')],
    writesContent: true,
  },
  'fs.move': {
    capabilities: ['fs.write', 'fs.delete'],
    reversible: true,
    floor: 'T1',
    args: () => z.strictObject({ to: z.string(), from: z.string() }),
    paths: [write('to'), { key: 'from', access: 'delete' }],
    writesContent: true,
  },
  'fs.link': {
    capabilities: ['fs.write'],
    reversible: true,
    floor: 'T1',
    // `target` is where the link leads, resolved against the link's folder as the kernel will.
    args: () => z.strictObject({ path: z.string(), target: z.string() }),
    paths: [write('path'), read('target')],
    writesContent: true,
  },
  'fs.edit': {
    capabilities: ['fs.write'],
    reversible: true,
    floor: 'T1',
    // A program edits the file in place (`sed -i`): what it leaves is known only after it ran.
    args: () => z.strictObject({ path: z.string(), program: name, args: z.array(z.string().max(32_768)).max(1024) }),
    paths: [write('path')],
    writesContent: true,
  },
  'exec.run': {
    capabilities: ['proc.spawn'],
    reversible: false,
    floor: 'T1',
    args: () => z.strictObject({
      program: name,
      args: z.array(z.string().max(32_768)).max(1024).default([]),
      cwd: z.string().optional(),
      timeout: z.number().int().min(1).max(EXEC_TIMEOUT_S.max).default(EXEC_TIMEOUT_S.default),
    }),
    paths: [{ key: 'cwd', access: 'write', optional: true }],
  },
  'exec.run_with_secrets': {
    capabilities: ['proc.spawn', 'secret.read'],
    reversible: false,
    floor: 'T2', // handing a credential to a program is always a person's call
    args: () => z.strictObject({
      program: name,
      args: z.array(z.string().max(32_768)).max(1024).default([]),
      cwd: z.string().optional(),
      timeout: z.number().int().min(1).max(EXEC_TIMEOUT_S.max).default(EXEC_TIMEOUT_S.default),
      /** Environment variable → secret name; values never pass through the gate or the model. */
      secrets: z.record(z.string().regex(ENV_NAME), z.string().regex(SECRET_NAME)).refine((m) => Object.keys(m).length > 0 && Object.keys(m).length <= 16, 'name 1 to 16 secrets'),
    }),
    paths: [{ key: 'cwd', access: 'write', optional: true }],
  },
  'git.status': { capabilities: ['fs.read'], reversible: true, floor: 'T0', args: () => z.strictObject({ repo: z.string() }), paths: [read('repo')] },
  'git.diff': {
    capabilities: ['fs.read'],
    reversible: true,
    floor: 'T0',
    args: () => z.strictObject({ repo: z.string(), staged: z.boolean().default(false) }),
    paths: [read('repo')],
  },
  'git.log': {
    capabilities: ['fs.read'],
    reversible: true,
    floor: 'T0',
    args: () => z.strictObject({ repo: z.string(), limit: z.number().int().min(1).max(10_000).default(20) }),
    paths: [read('repo')],
  },
  'git.commit': {
    capabilities: ['git.write'],
    reversible: true,
    floor: 'T1',
    args: () => z.strictObject({ repo: z.string(), message: z.string().max(100_000), paths: z.array(z.string()).max(10_000).optional() }),
    paths: [write('repo'), { key: 'paths', access: 'write', optional: true, list: true }],
  },
  'git.push': {
    capabilities: ['git.write', 'net.egress'],
    reversible: false,
    floor: 'T2', // visible to other people and cannot be un-published
    args: () => z.strictObject({ repo: z.string(), remote: z.string(), branch: z.string(), force: z.boolean().default(false) }),
    paths: [read('repo')],
  },
  'net.fetch': {
    capabilities: ['net.egress'],
    reversible: false,
    floor: 'T1',
    args: () => z.strictObject({
      url: z.string().max(8192),
      method: z.string().default('GET'),
      headers: z.record(z.string(), z.string()).default({}),
      body: text.optional(),
      /**
       * Header name → a stored secret sent as that header's value (after `prefix`): the value is
       * read by the gate when the request leaves and never passes through the model or the card.
       */
      secrets: z
        .record(
          z.string().regex(FETCH_HEADER_NAME),
          z.strictObject({
            name: z.string().regex(SECRET_NAME).describe('the name of a secret stored with `oracle secrets set NAME`'),
            prefix: z.string().regex(HEADER_PREFIX).default('').describe('an auth scheme sent before the value, a word and one space (`Bearer `, `token `, `Basic `), or empty'),
          }),
        )
        .refine((m) => Object.keys(m).length > 0 && Object.keys(m).length <= 8, 'name 1 to 8 secret headers')
        .optional(),
    }),
    paths: [],
  },
  'agent.delegate': {
    capabilities: ['agent.delegate'],
    reversible: false,
    floor: 'T1', // a sub-agent's own tool calls cross this gate too; taint makes it confirmed
    // When the gate runs it: `files` are copied into the delegate's job directory (each judged as
    // a read); what it leaves is written back into `out_dir`, each file an fs.write of its own.
    args: () => z.strictObject({ description: z.string().max(10_000), prompt: z.string().max(1_000_000), subagent_type: z.string().max(256).optional(), files: z.array(z.string()).max(32).optional(), out_dir: z.string().optional() }),
    paths: [
      { key: 'files', access: 'read', optional: true, list: true },
      { key: 'out_dir', access: 'write', optional: true },
    ],
  },
  'term.write': {
    capabilities: ['term.write'],
    reversible: false,
    floor: 'T2', // typing into a person's shell carries all their permissions
    args: () => z.strictObject({ session: name, text: z.string().max(65_536) }),
    paths: [],
  },
  'term.read': {
    capabilities: ['term.read'],
    reversible: true,
    floor: 'T0',
    readsOnly: true,
    // The last `lines` lines the terminal shows, as text (server/toolhost/terminals.ts).
    args: () => z.strictObject({ session: name, lines: z.number().int().min(1).max(1000).default(100) }),
    paths: [],
  },
  'input.synth': { capabilities: ['input.synth'], reversible: false, floor: 'T3', args: () => z.strictObject({ text: z.string().max(65_536) }), paths: [] },
  'sys.settings': {
    capabilities: ['sys.settings'],
    reversible: false,
    floor: 'T3',
    args: () => z.strictObject({ key: name, value: z.union([z.string().max(65_536), z.number(), z.boolean()]) }),
    paths: [],
  },
} satisfies { readonly [K in ToolName]: ContractSpec };

// INVARIANT: no prototype on the lookup table, so `constructor` or `__proto__` is simply unknown.
const REGISTRY: Readonly<Record<string, ToolContract>> = Object.assign(
  Object.create(null) as Record<string, ToolContract>,
  Object.fromEntries(TOOL_NAMES.map((tool) => [tool, contractOf(tool, CONTRACTS[tool])])),
);

/** A tool's arguments as its schema outputs them (defaults filled in): what the gate judged. */
export type ToolArgs<T extends ToolName> = z.output<ReturnType<(typeof CONTRACTS)[T]['args']>>;

function contractOf(name: ToolName, spec: ContractSpec): ToolContract {
  const { args, ...rest } = spec;
  let schema: ToolContract['args'] | undefined;
  return {
    name,
    ...rest,
    get args() {
      schema ??= args();
      return schema;
    },
  };
}

export function lookupTool(tool: string): ToolContract | undefined {
  return REGISTRY[tool];
}

export function isToolName(tool: string): tool is ToolName {
  return lookupTool(tool) !== undefined;
}

export function allTools(): readonly ToolContract[] {
  return TOOL_NAMES.map((tool) => REGISTRY[tool]).filter((t): t is ToolContract => t !== undefined);
}
