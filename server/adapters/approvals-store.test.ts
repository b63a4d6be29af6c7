import { mkdtempSync, readFileSync, rmSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { requestApproval, cancel } from '../core/approvals/approval.js';
import { ApprovalsFile } from './approvals-store.js';
import { HomeFileError } from './home-file-error.js';

const card = (id: string) =>
  requestApproval({ approvalId: id, traceId: `ac_${id}`, tool: 'fs.delete', argHash: 'sha256:x', tier: 'T2', reason: 'r', preview: {}, provenance: [], nonce: 'n', session: null, project: null }, new Date('2026-12-01T00:00:00Z'));

describe('ApprovalsFile: a snapshot and a journal of changes', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'oracle-approvals-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('replays every change over the snapshot, drops a torn last line, and compacts to an empty journal', () => {
    const dir = fresh();
    const file = new ApprovalsFile(dir);
    file.compact({ approvals: [card('ap_1')], remembered: [], sessions: {}, requests: {} });
    file.append([{ op: 'approval', value: card('ap_2') }, { op: 'request', id: 'ap_2', value: { action: { tool: 'fs.delete' }, agent: null, action_id: 'ac_2' } }]);
    file.append([{ op: 'approval', value: cancel(card('ap_1'), new Date('2026-12-01T00:01:00Z')) }, { op: 'session', id: 's', value: { tainted: true, provenance: [] } }]);
    appendFileSync(file.journalPath, Buffer.from('{"op":"approval","value":{"appro\u00e9', 'utf8').subarray(0, -1)); // a crash mid-append, mid-character
    file.close();
    const loaded = new ApprovalsFile(dir).load();
    expect(loaded.approvals.map((a) => [a.approval_id, a.state])).toEqual([
      ['ap_1', 'cancelled'],
      ['ap_2', 'pending'],
    ]);
    expect(Object.keys(loaded.requests)).toEqual(['ap_2']);
    expect(loaded.sessions['s']?.tainted).toBe(true);
    // The torn tail was cut at load: a change appended now is a line of its own.
    const next = new ApprovalsFile(dir);
    next.load();
    next.append([{ op: 'session', id: 't', value: { tainted: false, provenance: [] } }]);
    next.close();
    expect(new ApprovalsFile(dir).load().sessions['t']).toEqual({ tainted: false, provenance: [] });
    const again = new ApprovalsFile(dir);
    again.compact({ ...loaded, sessions: { ...loaded.sessions, t: { tainted: false, provenance: [] } } });
    expect(readFileSync(again.journalPath, 'utf8')).toBe('');
    expect(new ApprovalsFile(dir).load().approvals).toEqual(loaded.approvals);
    again.close();
  });

  it('names the journal when a complete line is not a change ORACLE writes', () => {
    const dir = fresh();
    const file = new ApprovalsFile(dir);
    appendFileSync(file.journalPath, '{"op":"approval","value":{}}\n');
    expect(() => file.load()).toThrow(HomeFileError);
    expect(() => file.load()).toThrow(file.journalPath);
  });
});
