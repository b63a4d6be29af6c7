import { describe, expect, it } from 'vitest';
import { decisionFromTier, deny } from '../../../shared/decision.js';
import type { Evaluation } from '../decide/decide.js';
import { editAsWrite, type RawText } from './edit-as-write.js';

const ok = (tool: string, args: Record<string, unknown>): Evaluation => ({
  decision: decisionFromTier('T1', 'test', ['allowed']),
  tool,
  args,
  paths: [{ real: '/p/f.txt' } as unknown as Evaluation['paths'][number]],
});

function deps(read: RawText, refuse?: string) {
  const judged: string[] = [];
  let reads = 0;
  return {
    judged,
    reads: () => reads,
    deps: {
      judge: (a: Readonly<Record<string, unknown>>) => {
        judged.push(String(a['tool']));
        return refuse === a['tool'] ? { decision: deny('PATH_OUTSIDE_SCOPE', 'scope', ['outside']), tool: String(a['tool']), args: null, paths: [] } : ok(String(a['tool']), a['args'] as Record<string, unknown>);
      },
      read: () => {
        reads += 1;
        return read;
      },
    },
  };
}

const edit = (edits: unknown) => ({ tool: 'fs.replace', args: { path: '/p/f.txt', edits }, session: 's' });

describe('an edit judged as the exact write it makes', () => {
  it('is the write of the edited text, bound to the digest of what it was computed from', () => {
    const d = deps({ kind: 'text', text: 'a b a', digest: 'sha256:x' });
    const e = editAsWrite(edit([{ old_string: 'b', new_string: 'c' }]), d.deps);
    expect(e?.tool).toBe('fs.write');
    expect(e?.args).toEqual({ path: '/p/f.txt', content: 'a c a', expect_before: 'sha256:x' });
    expect(d.judged).toEqual(['fs.read', 'fs.write', 'fs.write']);
  });

  it('creates an absent file only from an empty old_string, and binds it to `absent`', () => {
    const e = editAsWrite(edit([{ old_string: '', new_string: 'new' }]), deps({ kind: 'absent' }).deps);
    expect(e?.args).toEqual({ path: '/p/f.txt', content: 'new', expect_before: 'absent' });
  });

  it('never reads a file the caller may not read or write', () => {
    for (const refused of ['fs.read', 'fs.write']) {
      const d = deps({ kind: 'text', text: 'secret', digest: 'sha256:x' }, refused);
      const e = editAsWrite(edit([{ old_string: 'secret', new_string: 'x' }]), d.deps);
      expect(e?.decision).toMatchObject({ decision: 'deny', code: 'PATH_OUTSIDE_SCOPE' });
      expect(e?.tool).toBe('fs.replace');
      expect(d.reads()).toBe(0);
    }
  });

  it('refuses malformed edits before judging anything, and edits that do not apply after reading', () => {
    for (const bad of [[], [{ old_string: 1, new_string: 'x' }], [{ old_string: 'a', new_string: 'b', extra: true }], 'a']) {
      const d = deps({ kind: 'absent' });
      expect(editAsWrite(edit(bad), d.deps)?.decision).toMatchObject({ decision: 'deny', code: 'INPUT_INVALID' });
      expect(d.judged).toEqual([]);
    }
    const none = editAsWrite(edit([{ old_string: 'zzz', new_string: 'x' }]), deps({ kind: 'text', text: 'abc', digest: 'sha256:x' }).deps);
    expect(none?.decision).toMatchObject({ decision: 'deny', code: 'EDIT_NOT_APPLIED' });
    const binary = editAsWrite(edit([{ old_string: 'a', new_string: 'x' }]), deps({ kind: 'unavailable', reason: 'the file is not UTF-8 text' }).deps);
    expect(binary?.decision.reasons.join(' ')).toContain('not UTF-8');
  });

  it('leaves every other action alone', () => {
    expect(editAsWrite({ tool: 'fs.write', args: {} }, deps({ kind: 'absent' }).deps)).toBeUndefined();
    expect(editAsWrite(null, deps({ kind: 'absent' }).deps)).toBeUndefined();
  });
});
