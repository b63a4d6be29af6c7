import { describe, expect, it } from 'vitest';
import { afterReading, CLEAN } from './taint.js';

describe('a session’s taint', () => {
  it('is set by foreign or external content and stays set', () => {
    expect(afterReading(CLEAN, [{ kind: 'user', source: 'README.md' }, { kind: 'local_trusted', source: 'src/a.ts' }])).toBeUndefined();
    const tainted = afterReading(CLEAN, [{ kind: 'external', source: 'https://example.com/' }]);
    expect(tainted).toEqual({ tainted: true, provenance: [{ kind: 'external', source: 'https://example.com/' }] });
    // Reading the user's own files afterwards changes nothing: it is sticky.
    expect(afterReading(tainted ?? CLEAN, [{ kind: 'user', source: 'README.md' }])).toBeUndefined();
  });

  it('names each source once, the newest last, and at most 32', () => {
    const once = afterReading(CLEAN, [
      { kind: 'local_foreign', source: 'node_modules/x/README.md' },
      { kind: 'local_foreign', source: 'node_modules/x/README.md' },
    ]);
    expect(once?.provenance).toHaveLength(1);
    expect(afterReading(once ?? CLEAN, [{ kind: 'local_foreign', source: 'node_modules/x/README.md' }])).toBeUndefined();
    let state = once ?? CLEAN;
    for (let i = 0; i < 40; i++) state = afterReading(state, [{ kind: 'external', source: `https://e.example/${String(i)}` }]) ?? state;
    expect(state.provenance).toHaveLength(32);
    expect(state.provenance.at(-1)?.source).toBe('https://e.example/39');
  });
});
