import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { CredentialStore } from '../adapters/credentials-store.js';
import { ensureDir, ensurePrivateDir, fileExists, readOperatorFile, writePrivateFile } from '../adapters/files.js';
import { ORACLE_BIN_PATH } from '../adapters/host.js';
import { withOracleHooks, withoutOracleHooks } from '../core/hook/settings-merge.js';
import type { GateState } from '../gate.js';

/**
 * `oracle integrate claude-code [--project DIR] [--remove]`: puts ORACLE's PreToolUse and
 * PostToolUse hooks into the user's (or a project's) Claude Code settings, keeping what is there,
 * and gives the hook its own agent credential (principal `claude-code`, stored 0600 in ORACLE's
 * home). The hook runs ORACLE by absolute path: PATH is never trusted.
 */
export async function runIntegrate(gate: GateState, options: { project: string | undefined; remove: boolean }, out: Writable): Promise<number> {
  const settingsPath = options.project === undefined ? join(homedir(), '.claude', 'settings.json') : join(options.project, '.claude', 'settings.json');
  let settings: Record<string, unknown> = {};
  if (fileExists(settingsPath)) {
    const read = readOperatorFile(settingsPath);
    if (!read.ok) {
      out.write(`oracle: cannot read ${settingsPath}: ${read.reason}\n`);
      return 1;
    }
    try {
      settings = JSON.parse(read.bytes.toString('utf8')) as Record<string, unknown>;
    } catch {
      out.write(`oracle: ${settingsPath} is not valid JSON; fix it first (nothing was changed)\n`);
      return 1;
    }
  }
  if (options.remove) {
    writePrivateFile(settingsPath, `${JSON.stringify(withoutOracleHooks(settings), null, 2)}\n`);
    out.write(`removed ORACLE's hooks from ${settingsPath}\n`);
    return 0;
  }
  if (gate.context.gate.policy.agents.get('claude-code') === undefined) {
    out.write(`oracle: the policy ${gate.policyFile} has no principals.agents.claude-code; add it (its capabilities are the hook's ceiling)\n`);
    return 2;
  }
  const data = join(gate.home, 'data');
  ensurePrivateDir(data);
  const tokenFile = join(data, 'hook-claude-code.token');
  if (!fileExists(tokenFile)) {
    const { token } = await CredentialStore.open(data).issue('ag', 'claude-code');
    writePrivateFile(tokenFile, `${token}\n`);
  }
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(ORACLE_BIN_PATH)} hook claude-code --home ${JSON.stringify(gate.home)}`;
  ensureDir(join(settingsPath, '..'));
  writePrivateFile(settingsPath, `${JSON.stringify(withOracleHooks(settings, command), null, 2)}\n`);
  out.write(`ORACLE's hooks are in ${settingsPath}\n  ${command}\n`);
  return 0;
}
