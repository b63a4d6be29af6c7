import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { ensureDir, readOperatorFile, writePrivateFile } from '../adapters/files.js';
import { packageRoot } from '../adapters/host.js';
import { decide } from '../core/decide/decide.js';
import { withProjectRoot } from '../core/policy/add-root.js';
import { loadGatePolicy, type GateState } from '../app/gate-policy.js';

/**
 * `oracle integrate claude-code --project DIR` puts DIR in scope (read-write) so the integrated
 * project just works: a root added to `scopes.projects` of the policy the gate reads, never by
 * editing the installed default in place (the home gets its own copy, comments kept), validated
 * like any policy, and its new digest printed. A DIR the policy refuses for another reason (a
 * deny_always path) is not added. Returns the gate state on the policy now in force, or undefined.
 */
export function scopeProject(gate: GateState, project: string, out: Writable): GateState | undefined {
  const dir = resolve(project);
  if (dir === '/' || dir === homedir()) {
    out.write(`oracle: \`${dir}\` is not a project; put one folder in scope, not the whole home or disk\n`);
    return undefined;
  }
  // The gate's own decision says whether DIR is writable already, or refused for a reason of its own.
  const probe = decide({ tool: 'fs.write', args: { path: join(dir, '.oracle-scope-check'), content: '' } }, gate.context);
  if (probe.decision !== 'deny') {
    out.write(`${dir} is already in scope (${probe.rule})\n`);
    return gate;
  }
  if (probe.code !== 'PATH_OUTSIDE_SCOPE' && probe.code !== 'SCOPE_READ_ONLY') {
    out.write(`oracle: the policy refuses \`${dir}\` itself (${probe.code}: ${probe.reasons.join('; ')}); nothing was changed\n`);
    return undefined;
  }
  const installed = resolve(packageRoot(), 'config', 'policy.yaml');
  const target = resolve(gate.policyFile) === installed ? join(gate.home, 'config', 'policy.yaml') : gate.policyFile;
  const read = readOperatorFile(gate.policyFile);
  if (!read.ok) {
    out.write(`oracle: cannot read ${gate.policyFile}: ${read.reason}\n`);
    return undefined;
  }
  const before = read.bytes.toString('utf8');
  const added = withProjectRoot(before, dir);
  if ('error' in added) {
    out.write(`oracle: cannot add \`${dir}\` to ${gate.policyFile}: ${added.error}; add it to scopes.projects.roots by hand\n`);
    return undefined;
  }
  const previous = target === gate.policyFile ? before : undefined;
  ensureDir(dirname(target));
  writePrivateFile(target, added.text);
  const next = loadGatePolicy({ home: gate.home, policy: target });
  if (next.errors.length > 0) {
    // Never leave a policy that would put the gate in read-only mode.
    if (previous !== undefined) writePrivateFile(target, previous);
    out.write(`oracle: the policy with \`${dir}\` added does not validate (${next.errors[0]?.message ?? ''}); nothing was changed\n`);
    return undefined;
  }
  out.write(`${dir} is in scope now: scopes.projects in ${target}\n  digest: ${next.digest ?? 'none'}\n`);
  return next;
}
