import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file.js';
import { parseHomeJson } from './home-file-error.js';

/** A policy change an agent proposed (issue 16): the whole proposed file, never in force by itself. */
export interface PolicyCandidate {
  readonly id: string;
  readonly text: string;
  readonly reason: string;
  readonly proposed_by: string;
  readonly proposed_at: string;
  /** The digest of the policy in force when it was proposed. */
  readonly base_digest: string | null;
}

const FILE = 'policy-candidates.json';
const FIX = 'remove it (the proposals in it are lost; the policy in force is not touched)';
const isCandidate = (v: unknown): v is PolicyCandidate => {
  const c = v as Record<string, unknown> | null;
  return typeof c === 'object' && c !== null && typeof c['id'] === 'string' && typeof c['text'] === 'string' && typeof c['reason'] === 'string' && typeof c['proposed_by'] === 'string' && typeof c['proposed_at'] === 'string' && (c['base_digest'] === null || typeof c['base_digest'] === 'string');
};
const isFile = (v: unknown): v is { v: 1; candidates: PolicyCandidate[] } => {
  const f = v as Record<string, unknown> | null;
  return typeof f === 'object' && f !== null && f['v'] === 1 && Array.isArray(f['candidates']) && f['candidates'].every(isCandidate);
};

/** `<home>/data/policy-candidates.json` (0600, replaced atomically). A corrupt file stops the start, named. */
export class PolicyCandidatesStore {
  private candidates: PolicyCandidate[];

  private constructor(
    readonly path: string,
    candidates: PolicyCandidate[],
  ) {
    this.candidates = candidates;
  }

  static open(dataDir: string): PolicyCandidatesStore {
    const path = join(dataDir, FILE);
    return new PolicyCandidatesStore(path, existsSync(path) ? parseHomeJson(path, readFileSync(path, 'utf8'), isFile, FIX).candidates : []);
  }

  list(): readonly PolicyCandidate[] {
    return this.candidates;
  }

  get(id: string): PolicyCandidate | undefined {
    return this.candidates.find((c) => c.id === id);
  }

  add(candidate: PolicyCandidate): void {
    this.candidates = [...this.candidates, candidate];
    this.save();
  }

  remove(id: string): boolean {
    const before = this.candidates.length;
    this.candidates = this.candidates.filter((c) => c.id !== id);
    if (this.candidates.length !== before) this.save();
    return this.candidates.length !== before;
  }

  private save(): void {
    writeFileAtomic(this.path, `${JSON.stringify({ v: 1, candidates: this.candidates }, null, 2)}\n`);
  }
}
