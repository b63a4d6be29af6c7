import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GENESIS, recomputeHash, sealRecord, sealRecordLine, type AuditBody } from './record.js';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sealRecordLine', () => {
  it('writes a line that parses to the sealed record, whose hash recomputes from its own fields', () => {
    const bodies: AuditBody[] = [
      { kind: 'decision', ts: '2026-12-02T10:00:00.000Z', actor: 'server', action_id: 'ac_1', tool: 'fs.read', args_preview: '{"path":"/tmp/é \\"q\\" \u2028"}', reasons: ['a', 'b'], code: null },
      { kind: 'succeeded', ts: '2026-12-02T10:00:00.001Z', actor: 'server', duration_ms: 1.5, detail: { nested: { z: 1, a: [true, null, 'x'] } } },
    ];
    let head = GENESIS;
    for (const body of bodies) {
      const { record, line } = sealRecordLine(body, head, sha256);
      expect(JSON.parse(line)).toEqual(record);
      expect(record).toEqual(sealRecord(body, head, sha256));
      expect(recomputeHash(JSON.parse(line) as typeof record, sha256)).toBe(record.hash);
      expect(line).not.toContain('\n');
      head = record;
    }
  });

  it('refuses a body with no canonical form (a lone surrogate) instead of writing it', () => {
    expect(() => sealRecordLine({ kind: 'decision', ts: 't', actor: '\ud800' }, GENESIS, sha256)).toThrow();
  });
});
