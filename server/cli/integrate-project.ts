import type { Writable } from 'node:stream';
import { ignoreLocally } from '../adapters/git-local-ignore.js';
import { pinOne } from '../adapters/pin-programs.js';
import type { GateState } from '../app/gate-policy.js';
import { reloadRunningGate } from './policy-reload.js';

/**
 * What `oracle integrate claude-code --project DIR` does beyond the settings file: keep the file
 * that holds the hook's credential out of git, and have a running gate take DIR's new scope.
 */

/**
 * Claude Code's personal settings for a project: it reads them with the same hooks schema as the
 * shared `.claude/settings.json`, which a repository commits (and so would commit the http hook's
 * bearer credential). Relative to DIR, `/`-separated as git takes it.
 */
export const LOCAL_SETTINGS = '.claude/settings.local.json';
/** The shared project settings, where an older ORACLE put the hooks. */
export const SHARED_SETTINGS = '.claude/settings.json';

/**
 * Makes sure git will not commit DIR's personal settings before anything is written there. When
 * git cannot say (an error, an untrusted repository) or tracks the file already, nothing is
 * written: a credential in doubt stays out. With no git on this machine there is nothing to
 * commit it, and the output says to keep the file out of any repository.
 */
export async function keepOutOfGit(gate: GateState, project: string, out: Writable): Promise<boolean> {
  const file = `${project}/${LOCAL_SETTINGS}`;
  const git = gate.context.pins.get('git') ?? pinOne('git', undefined, { path: process.env['PATH'] ?? '', platform: process.platform, pathext: process.env['PATHEXT'] });
  if (!git.ok) {
    out.write(`  git: ${git.reason}, so ORACLE could not check that git ignores ${file}; it holds the hook's credential: never commit it\n`);
    return true;
  }
  const kept = await ignoreLocally(git.path, project, LOCAL_SETTINGS);
  switch (kept.kind) {
    case 'no-work-tree':
      return true;
    case 'ignored':
      out.write(`  git ignores ${file} already\n`);
      return true;
    case 'excluded':
      out.write(`  git ignores ${file} now: \`${kept.pattern}\` added to ${kept.file} (this clone's own excludes, not the committed .gitignore)\n`);
      return true;
    case 'tracked':
      out.write(`oracle: git tracks ${file}, so the hook's credential written there would be committed; untrack it first (\`git rm --cached ${LOCAL_SETTINGS}\`); nothing was changed\n`);
      return false;
    case 'failed':
      out.write(`oracle: cannot make sure git ignores ${file} (${kept.reason}); nothing was changed\n`);
      return false;
  }
}

/**
 * A running gate takes a changed policy only on an explicit reload (SPEC §3): integrate asks for
 * one, so DIR is in scope at once rather than every call failing PATH_OUTSIDE_SCOPE until the gate
 * restarts. True when the gate decides by the policy integrate wrote, or when no gate runs.
 */
export async function reloadForScope(gate: GateState, project: string, out: Writable): Promise<boolean> {
  const reload = await reloadRunningGate(gate.home);
  switch (reload.kind) {
    case 'no-gate':
      out.write('  no gate runs with this home now: the scope applies when it starts\n');
      return true;
    case 'reloaded':
      if (reload.to === gate.digest) {
        out.write(`  the running gate reloaded its policy (${reload.changed ? `${reload.from} -> ${reload.to}` : 'it had this one already'}): ${project} is in scope there\n`);
        return true;
      }
      // The gate was started on another policy file (`--policy`): integrate did not edit that one.
      out.write(`oracle: the running gate reloaded, but it decides by another policy (${reload.to}, not ${gate.digest ?? 'none'}); add ${project} to its scopes.projects, then run \`oracle policy reload\`\n`);
      return false;
    case 'refused':
      out.write(`oracle: the running gate refused to reload ${reload.file} (${reload.errors[0]?.message ?? 'errors'}); it keeps its policy (${reload.kept}), without ${project}\n`);
      return false;
    case 'unreachable':
      out.write(`oracle: the running gate at ${reload.url} did not answer the reload (${reload.reason}); run \`oracle policy reload\` once it does\n`);
      return false;
    case 'failed':
      out.write(`oracle: the running gate refused the reload (HTTP ${String(reload.status)}); run \`oracle policy reload\`\n`);
      return false;
  }
}
