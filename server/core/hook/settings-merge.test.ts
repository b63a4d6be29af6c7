import { describe, expect, it } from 'vitest';
import { POST_TOOL_MATCHER } from './claude-code-map.js';
import { withOracleHooks, withoutOracleHooks, type OracleHook } from './settings-merge.js';

type Json = Record<string, unknown>;
const merged = (settings: Json, hook: OracleHook): Json => {
  const out = withOracleHooks(settings, hook);
  if ('error' in out && typeof out.error === 'string') throw new Error(out.error);
  return out;
};

describe('Claude Code settings merge', () => {
  const theirs = {
    model: 'opus',
    permissions: { allow: ['Bash(npm test)'] },
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-linter' }] }], Stop: [{ hooks: [{ type: 'command', command: 'notify' }] }] },
  };
  const cmd = '"/usr/bin/node" "/opt/oracle/dist/server/cli/oracle.js" hook claude-code --home "/h"';
  const command: OracleHook = { kind: 'command', command: cmd, timeoutS: 120 };
  const url = 'https://127.0.0.1:8443/api/v1/hooks/claude-code';
  const http: OracleHook = { kind: 'http', url, token: 'oracle_ag_x_y', caFile: '/h/certs/ca.crt', timeoutS: 120 };

  it('adds ORACLE first for every tool, blocking on failure, keeps everything else, and is idempotent', () => {
    const once = merged(theirs, command);
    expect(merged(once, command)).toEqual(once);
    expect(once['model']).toBe('opus');
    expect(once['permissions']).toEqual(theirs.permissions);
    const hooks = once['hooks'] as Record<string, { matcher?: string; hooks: { command: string; timeout?: number }[] }[]>;
    expect(hooks['PreToolUse']?.[0]).toEqual({ matcher: '*', hooks: [{ type: 'command', command: `${cmd} || exit 2`, timeout: 120, onFailure: 'block' }] });
    expect(hooks['PreToolUse']?.[1]?.hooks[0]?.command).toBe('my-linter');
    // A skill's shell commands, run as it loads without a PreToolUse, are asked about too.
    expect(hooks['PreSkillShellCommand']).toEqual([{ matcher: '*', hooks: [{ type: 'command', command: `${cmd} || exit 2`, timeout: 120, onFailure: 'block' }] }]);
    // After the call, only the tools whose output can taint the session.
    expect(hooks['PostToolUse']?.[0]?.matcher).toBe(POST_TOOL_MATCHER);
    expect(hooks['Stop']).toEqual(theirs.hooks.Stop);
  });

  it('writes the http hook with its credential, blocking on failure, and trusts ORACLE’s CA', () => {
    const once = merged(theirs, http);
    const pre = (once['hooks'] as Record<string, { hooks: Json[] }[]>)['PreToolUse']?.[0]?.hooks[0];
    expect(pre).toEqual({ type: 'http', url, headers: { Authorization: 'Bearer oracle_ag_x_y' }, timeout: 120, onFailure: 'block' });
    expect(once['env']).toEqual({ NODE_EXTRA_CA_CERTS: '/h/certs/ca.crt' });
    // Switching kinds replaces ORACLE's entries instead of adding a second.
    const back = merged(once, command);
    expect((back['hooks'] as Record<string, unknown[]>)['PreToolUse']).toHaveLength(2);
    expect(withoutOracleHooks(once, '/h/certs/ca.crt')).toEqual(theirs);
  });

  it('refuses to take over a CA setting the user made', () => {
    expect(withOracleHooks({ env: { NODE_EXTRA_CA_CERTS: '/corp/ca.pem' } }, http)).toHaveProperty('error');
  });

  it('replaces an older ORACLE entry instead of adding a second', () => {
    const older = merged(theirs, { ...command, command: 'oracle hook claude-code --home /old' });
    const newer = merged(older, command);
    expect((newer['hooks'] as Record<string, unknown[]>)['PreToolUse']).toHaveLength(2);
  });

  it('removes only ORACLE’s entries, and drops events left empty', () => {
    expect(withoutOracleHooks(merged(theirs, command))).toEqual(theirs);
    expect(withoutOracleHooks(merged({}, command))).toEqual({});
  });
});
