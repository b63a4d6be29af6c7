import { basename } from 'node:path';
import { readNoFollow, utf8Text } from '../../adapters/agent/files.js';
import { delegateArgvRefusal } from '../../core/decide/agent-bypass.js';
import type { ToolhostEnv } from '../env.js';
import { runJob, type JobOutcome } from '../run-job.js';
import { failed, type PreparedAction } from '../types.js';
import { FORWARDER_NAME, CONNECT_NAME } from '../egress-forwarder.js';

/** A delegated job reads at most this many files, each at most this large (text only). */
const MAX_FILES = 32;
const MAX_FILE_BYTES = 1_048_576;
/** What the delegate leaves in its directory comes back, within these bounds. */
const MAX_RESULTS = 32;
const MAX_RESULT_BYTES = 262_144;
/** A returned file's name: plain, no path, nothing a card or a log would show oddly. */
const RESULT_NAME = /^[A-Za-z0-9][A-Za-z0-9._ -]{0,127}$/u;
const OWN_NAMES = new Set([FORWARDER_NAME, CONNECT_NAME, 'egress.sock', 'tmp', '.gitconfig']);

/**
 * agent.delegate run by the gate (issue 17, seed 000 D-O5): the policy's headless agent
 * (`delegate:`, Claude Code's `claude -p` the reference) on the task text, in a fresh job directory
 * that holds only copies of the files the action names (each judged as a read) and is the agent's
 * HOME, so its configuration and caches are the job's own. Its API key is read from the secret
 * store at spawn and reaches only its environment (redacted from everything it prints); its one
 * way out is the job's egress proxy to the policy's hosts; it runs restricted (as root: the job
 * account) with the policy's time limit and the toolhost's output cap. The program and its
 * arguments are the policy's (checked again here for permission-skipping flags); the requesting
 * agent gives only the task. What it prints and the text files it leaves come back as data; the
 * lifecycle labels them foreign, so the session is tainted and whatever it writes with them is
 * judged as any other write.
 */
export async function agentDelegate(action: PreparedAction<'agent.delegate'>, env: ToolhostEnv): Promise<JobOutcome> {
  const rule = env.gate.policy.delegate;
  if (rule === undefined) return { result: failed('EXECUTOR_UNAVAILABLE', 'the policy names no delegate agent (`delegate:`); sub-agents of an agent that runs its own tools are run by that agent') };
  // Only a sandbox makes the job's proxy its only way out (and, as root, drops it to the job account).
  if (env.sandbox.kind !== 'bubblewrap') return { result: failed('EXECUTOR_UNAVAILABLE', `a delegate runs only in the job sandbox, and this host has none: ${env.sandbox.reason}`) };
  // The task is the last argument: an agent-written option there would be parsed as one.
  if (action.args.prompt.trimStart().startsWith('-')) return { result: failed('ARG_SHAPE', 'the task text may not start with `-` (it would be read as an option of the delegate program)') };
  const refused = delegateArgvRefusal([rule.program, ...rule.args, action.args.prompt]);
  if (refused !== undefined) return { result: failed('PROGRAM_DENIED', refused) };
  // The decision replaced each named file by its real path (and judged it as a read).
  const inputs = action.args.files ?? [];
  if (inputs.length > MAX_FILES) return { result: failed('ARG_SHAPE', `a delegated job takes at most ${String(MAX_FILES)} files`) };
  const homeFiles: Record<string, string> = {};
  for (const path of inputs) {
    const name = basename(path);
    if (name in homeFiles || OWN_NAMES.has(name) || name.startsWith('.')) return { result: failed('ARG_SHAPE', `\`${name}\` cannot be copied in (a name used twice, a hidden name or one of the job's own)`) };
    let bytes: Buffer;
    try {
      bytes = readNoFollow(path, MAX_FILE_BYTES, 'exact');
    } catch (e) {
      return { result: failed('FS_NOT_A_FILE', e instanceof Error ? e.message : `\`${path}\` could not be read`) };
    }
    const text = utf8Text(bytes);
    if (text === undefined) return { result: failed('FS_NOT_TEXT', `\`${path}\` is not UTF-8 text; a delegated job gets text files only`) };
    homeFiles[name] = text;
  }
  const extraEnv: Record<string, string> = {};
  let secrets: string[] = [];
  if (rule.key !== undefined) {
    if (env.secrets === undefined) return { result: failed('SECRET_MISSING', 'no secret store is available on this host') };
    const value = await env.secrets.get(rule.key.secret);
    if (value === undefined) return { result: failed('SECRET_MISSING', `no secret named \`${rule.key.secret}\` for the delegate's key`) };
    extraEnv[rule.key.env] = value;
    secrets = [value];
  }
  let left: { name: string; text: string }[] = [];
  const outcome = await runJob(
    {
      program: rule.program,
      args: [...rule.args, action.args.prompt],
      cwd: undefined,
      binds: [],
      egress: rule.hosts,
      timeoutMs: rule.timeoutS * 1000,
      extraEnv,
      secrets,
      homeFiles,
      ...(action.signal === undefined ? {} : { signal: action.signal }),
      afterRun: (files) => {
        left = files.filter((f) => RESULT_NAME.test(f.name) && !OWN_NAMES.has(f.name) && homeFiles[f.name] !== f.text && !secrets.some((k) => f.name.includes(k))).slice(0, MAX_RESULTS);
      },
      collectMaxBytes: MAX_RESULT_BYTES,
    },
    env,
  );
  const files = left.map((f) => ({ name: f.name, text: env.redact(f.text, secrets) }));
  return { ...outcome, result: { ...outcome.result, output: { files }, ...(rule.key === undefined ? {} : { secrets_read: [rule.key.secret] }) } };
}
