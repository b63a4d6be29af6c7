import * as z from 'zod';
import { CAPABILITIES } from '../../../shared/capabilities.js';
import { TIERS } from '../../../shared/tiers.js';

/**
 * The one schema of config/policy.yaml (SPEC §3 and §12). Every object is strict: an unknown key
 * is an error, never ignored. Nothing downstream sees the raw YAML; load.ts turns this output
 * into a typed `Policy`.
 */

const NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/u;
/** Built on first use: the headless hook, which reads a compiled policy from its cache, never needs it. */
function build() {
  const name = z.string().regex(NAME, 'names are letters, digits and . _ + - (at most 64)');
  const glob = z.string().min(1).max(4096);

  const root = z.strictObject({
    path: z.string().min(1).max(4096),
    mode: z.enum(['ro', 'rw']).default('ro'),
    exclude: z.array(glob).default([]),
  });

  const scope = z.strictObject({ roots: z.array(root).min(1) });

  /**
   * `scopes` maps names to scopes. The design document writes `deny_always` indented under
   * `scopes`, so that key is accepted there too and means the same as the top-level list.
   */
  const scopes = z.object({ deny_always: z.array(glob).optional() }).catchall(scope);

  const words = z.array(z.string().min(1).max(256)).default([]);

  const program = z.strictObject({
    path: z.string().min(1).max(4096).optional(),
    subcommands: z.strictObject({ allow: words, confirm: words, deny: words }).optional(),
    allow_args_matching: z.array(z.string().min(1).max(4096)).optional(),
    /** What an argv no rule of this program covers gets: refused (absent), or a person's call. */
    default: z.enum(['deny', 'confirm']).optional(),
  });

  const egress = z.strictObject({
    allow: z.array(z.strictObject({ host: z.string().min(1).max(253), why: z.string().max(500).default('') })).default([]),
    default: z.enum(['deny', 'confirm']).default('deny'),
  });

  /**
   * `delegate` (issue 17): the headless agent the gate runs for agent.delegate. The program and
   * its arguments are the policy's alone; the task text is appended as the last argument.
   */
  const delegate = z.strictObject({
    program: z.string().min(1).max(4096),
    args: z.array(z.string().max(4096)).max(64).default([]),
    key: z.strictObject({ secret: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/u), env: z.string().regex(/^[A-Z_][A-Z0-9_]{0,127}$/u) }).optional(),
    hosts: z.array(z.string().min(1).max(260)).min(1).max(16),
    timeout: z.number().int().min(1).max(3600).default(600),
  });

  const tierRule = z.strictObject({
    tool: z.string(),
    scope: name.optional(),
    path: glob.optional(),
    program: name.optional(),
    tier: z.enum(TIERS),
    why: z.string().max(500).optional(),
  });

  const agent = z.strictObject({
    capabilities: z.array(z.enum(CAPABILITIES)),
    description: z.string().max(500).optional(),
  });

  const policy = z.strictObject({
    version: z.literal(1).default(1),
    capabilities: z.array(z.enum(CAPABILITIES)).optional(),
    scopes: scopes.default({}),
    deny_always: z.array(glob).default([]),
    // `default` (deny | confirm) says what a program not in the list gets (SPEC §12); every other
    // key names a program. load.ts holds each key to its own kind.
    programs: z.record(name, z.union([program, z.enum(['deny', 'confirm'])])).default({}),
    egress: egress.default({ allow: [], default: 'deny' }),
    delegate: delegate.optional(),
    tiers: z.array(tierRule).default([]),
    principals: z.strictObject({ agents: z.record(name, agent).default({}) }).default({ agents: {} }),
  });

  /** Read-only mode keeps only what it can trust: a valid `scopes` and `deny_always` (SPEC §3). */
  const readOnly = z.object({ scopes: scopes.default({}), deny_always: z.array(glob).default([]) });

  return { policy, readOnly };
}

let built: ReturnType<typeof build> | undefined;

export function policySchemas(): ReturnType<typeof build> {
  built ??= build();
  return built;
}

export type PolicyFile = z.output<ReturnType<typeof build>['policy']>;

export { NAME as POLICY_NAME };
