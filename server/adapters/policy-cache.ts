import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPolicy, type LoadOptions, type LoadResult, type PolicyIssue } from '../core/policy/load.js';
import { policyFromJson, policyToJson } from '../core/policy/serial.js';
import { writeFileAtomic } from './atomic-file.js';
import { sha256Hex } from './host.js';

/**
 * The headless hook's compiled-policy cache (SPEC §11): the hook runs once per tool call and must
 * not parse and validate YAML every time, so the policy it loaded last is kept in
 * `<home>/data/policy-cache.json` and used again while nothing it depends on changed.
 *
 * The entry is found by a key over everything a load depends on: the policy's exact bytes, the
 * user's home (for `~`), the path flavour, and `codeId`, which names the build of the code that
 * loads (a new ORACLE build never reads an older build's entry). A body digest catches a torn or
 * corrupt file, which then reads as a miss and is loaded afresh. Only a valid policy is kept: an
 * invalid one is parsed again each time, so its errors stay exact. The file lives beside the audit
 * keys and credentials in the private data directory; whoever can write there can already act as
 * the gate, so the cache adds no one who could change a decision.
 */
const FORMAT = 1;
const FILE = 'policy-cache.json';

export type PolicyLoader = (text: string, options: LoadOptions) => LoadResult;

export function cachedPolicyLoader(dataDir: string, codeId: string): PolicyLoader {
  const file = join(dataDir, FILE);
  return (text, options) => {
    const key = sha256Hex(Buffer.from(JSON.stringify([FORMAT, codeId, sha256Hex(Buffer.from(text, 'utf8')), options.userHome, options.flavor]), 'utf8'));
    const kept = readEntry(file, key);
    if (kept !== undefined) return kept;
    const loaded = loadPolicy(text, options);
    if (loaded.ok) {
      const body = JSON.stringify({ policy: policyToJson(loaded.policy), warnings: loaded.warnings });
      try {
        writeFileAtomic(file, `${JSON.stringify({ key, digest: sha256Hex(Buffer.from(body, 'utf8')), body })}\n`);
      } catch {
        // Only a cost: the next call parses the policy again.
      }
    }
    return loaded;
  };
}

function readEntry(file: string, key: string): LoadResult | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined; // none yet, or unreadable: a miss
  }
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { key: kept, digest, body } = entry as Record<string, unknown>;
  if (kept !== key || typeof body !== 'string' || digest !== sha256Hex(Buffer.from(body, 'utf8'))) return undefined;
  let parsed: { policy?: unknown; warnings?: unknown };
  try {
    parsed = JSON.parse(body) as { policy?: unknown; warnings?: unknown };
  } catch {
    return undefined;
  }
  const policy = policyFromJson(parsed.policy);
  if (policy === undefined || !Array.isArray(parsed.warnings)) return undefined;
  return { ok: true, policy, warnings: parsed.warnings as PolicyIssue[] };
}
