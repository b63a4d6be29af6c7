import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../server/app/runtime.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from '../toolhost/runtime-fixture.js';

/**
 * The argument preview in an action's audit records: the start of each long string, redacted,
 * and how much was left out. Only the start is redacted (red team, session 31: a Write's 8 MiB
 * content was redacted whole for a 160-character preview, 5.6 s of the gate's thread).
 */
describe('the argument preview of a long write', () => {
  let tree: TempTree;
  let runtime: Runtime;
  let app = '';
  beforeAll(async () => {
    tree = tempTree('oracle-preview-');
    app = tree.dir('projects/app');
    runtime = await runtimeFor(tree, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write] }\n`);
  });
  afterAll(async () => {
    await runtime.close();
    tree.dispose();
  });

  it('shows the redacted start and the length left out', async () => {
    const key = `ghp_${'a1B2c3D4e5F6g7H8i9J0'.repeat(2)}`;
    const content = `token = ${key}\n${'x'.repeat(500_000)}`;
    const written = await runtime.run({ tool: 'fs.write', args: { path: join(app, 'big.txt'), content } });
    expect(written).toMatchObject({ executed: true });
    const decision = auditRecords(join(tree.root, 'home')).find((r) => r['kind'] === 'decision' && r['tool'] === 'fs.write');
    const preview = String(decision?.['args_preview']);
    expect(preview).not.toContain(key);
    expect(preview).toContain('token = ');
    // what is left out is counted from the content as written, not from the part that was redacted
    const left = Number(/…\(\+(\d+)\)/u.exec(preview)?.[1]);
    expect(left).toBeGreaterThan(500_000 - 200);
  });
});
