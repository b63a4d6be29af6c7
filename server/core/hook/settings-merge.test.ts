import { describe, expect, it } from 'vitest';
import { withOracleHooks, withoutOracleHooks } from './settings-merge.js';

describe('Claude Code settings merge', () => {
  const theirs = {
    model: 'opus',
    permissions: { allow: ['Bash(npm test)'] },
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-linter' }] }], Stop: [{ hooks: [{ type: 'command', command: 'notify' }] }] },
  };
  const cmd = '"/usr/bin/node" "/opt/oracle/dist/server/cli/oracle.js" hook claude-code --home "/h"';

  it('adds ORACLE first for every tool, keeps everything else, and is idempotent', () => {
    const once = withOracleHooks(theirs, cmd);
    expect(withOracleHooks(once, cmd)).toEqual(once);
    expect(once['model']).toBe('opus');
    expect(once['permissions']).toEqual(theirs.permissions);
    const hooks = once['hooks'] as Record<string, { matcher?: string; hooks: { command: string; timeout?: number }[] }[]>;
    expect(hooks['PreToolUse']?.[0]).toEqual({ matcher: '*', hooks: [{ type: 'command', command: cmd, timeout: 120 }] });
    expect(hooks['PreToolUse']?.[1]?.hooks[0]?.command).toBe('my-linter');
    expect(hooks['PostToolUse']?.[0]?.hooks[0]?.command).toBe(cmd);
    expect(hooks['Stop']).toEqual(theirs.hooks.Stop);
  });

  it('replaces an older ORACLE entry instead of adding a second', () => {
    const older = withOracleHooks(theirs, 'oracle hook claude-code --home /old');
    const newer = withOracleHooks(older, cmd);
    expect((newer['hooks'] as Record<string, unknown[]>)['PreToolUse']).toHaveLength(2);
  });

  it('removes only ORACLE’s entries, and drops events left empty', () => {
    const removed = withoutOracleHooks(withOracleHooks(theirs, cmd));
    expect(removed).toEqual(theirs);
    expect(withoutOracleHooks(withOracleHooks({}, cmd))).toEqual({});
  });
});
