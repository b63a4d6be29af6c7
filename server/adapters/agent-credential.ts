import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CredentialStore } from './credentials-store.js';
import { ensurePrivateDir, writePrivateFile } from './files.js';

/** A name that is safe as part of a file name and as a principal (`principals.agents.<name>`). */
const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/u;

/**
 * The agent credential a local client of the gate (`oracle mcp`) presents, kept in the home's
 * private data directory (`data/agent-<name>.token`, 0600) and issued on first use. Issuing from
 * this process is safe while the gate runs: the gate's store reads the file again on every check.
 * Undefined for a name that cannot be a file name. Once revoked it stays revoked: only removing
 * the file has a new one issued.
 */
export async function agentCredential(home: string, agent: string): Promise<string | undefined> {
  if (!AGENT_NAME.test(agent)) return undefined;
  const data = join(home, 'data');
  const file = join(data, `agent-${agent}.token`);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept !== '') return kept;
  } catch {
    // none yet: issued below
  }
  ensurePrivateDir(data);
  const { token } = await CredentialStore.open(data).issue('ag', agent);
  writePrivateFile(file, `${token}\n`);
  return token;
}
