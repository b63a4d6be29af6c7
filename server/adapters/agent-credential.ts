import { closeSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
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
  const kept = (): string | undefined => {
    try {
      const text = readFileSync(file, 'utf8').trim();
      return text === '' ? undefined : text;
    } catch {
      return undefined; // none yet
    }
  };
  ensurePrivateDir(data);
  // Several hosts starting at once (three MCP servers of one editor) must not each issue one: the
  // credential store is one file, read, changed and written by each, so all but the last issue
  // would be lost and their hosts refused. One process claims the issue; the others wait for its token.
  const claim = `${file}.issuing`;
  for (let attempt = 0; attempt < 400; attempt++) {
    const token = kept();
    if (token !== undefined) return token;
    let fd: number;
    try {
      fd = openSync(claim, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // A claim left by a process that died mid-issue is taken over after a few seconds.
      if (Date.now() - statMs(claim) > STALE_CLAIM_MS) rmSync(claim, { force: true });
      await new Promise((r) => setTimeout(r, 25));
      continue;
    }
    closeSync(fd);
    try {
      const again = kept();
      if (again !== undefined) return again;
      const { token: issued } = await CredentialStore.open(data).issue('ag', agent);
      writePrivateFile(file, `${issued}\n`);
      return issued;
    } finally {
      rmSync(claim, { force: true });
    }
  }
  throw new Error(`another process has been issuing the credential of \`${agent}\` for too long (${claim})`);
}

const STALE_CLAIM_MS = 5000;

function statMs(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
