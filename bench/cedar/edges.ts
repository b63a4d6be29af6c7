import { APP, HOME, type Action } from '../corpus.js';

/**
 * Not timed: actions chosen to sit on the edges of the translation, run through both engines so
 * the notes' claims are checked, not just stated. Two are known to differ (see notes.ts).
 */
export const EDGE_ACTIONS: readonly Action[] = [
  { tool: 'exec.run', args: { program: 'git', args: ['push', '--forc'], cwd: APP } },
  { tool: 'exec.run', args: { program: 'git', args: ['push', 'origin', '+main'], cwd: APP } },
  { tool: 'exec.run', args: { program: 'git', args: ['-c', 'core.pager=sh', 'log'], cwd: APP } },
  { tool: 'exec.run', args: { program: 'git', args: ['clean', '-xfd'], cwd: APP } },
  { tool: 'exec.run', args: { program: 'git', args: ['commit', '-F', '.env'], cwd: APP } },
  { tool: 'exec.run', args: { program: 'git', args: ['fetch'], cwd: APP } },
  { tool: 'exec.run', args: { program: 'npm', args: ['test', '~/.npmrc'], cwd: APP } },
  { tool: 'exec.run', args: { program: 'python3', args: ['-c', 'print(1)'], cwd: APP } },
  { tool: 'exec.run', args: { program: 'node', args: ['x.js'], cwd: APP } },
  { tool: 'exec.run', args: { program: '/bin/sh', args: ['-c', 'id'], cwd: APP } },
  { tool: 'fs.read', args: { path: `${APP}/../../.ssh/id_rsa` } },
  { tool: 'fs.read', args: { path: `${HOME}/projects-evil/x` } },
  { tool: 'fs.read', args: { path: `${APP}/.git/config` } },
  { tool: 'fs.write', args: { path: `${APP}/package.json`, content: '{}' } },
  { tool: 'fs.delete', args: { path: '/var' } },
  { tool: 'net.fetch', args: { url: 'https://api.anthropic.com/v1/messages', method: 'POST' } },
  { tool: 'net.fetch', args: { url: 'https://registry.npmjs.org:8443/x', method: 'GET' } },
  { tool: 'net.fetch', args: { url: 'https://registry.npmjs.org/x', method: 'GET', headers: { Host: 'evil.example' } } },
  { tool: 'net.fetch', args: { url: 'ftp://registry.npmjs.org/x', method: 'GET' } },
  { tool: 'term.write', args: { session: 's', text: 'ls\nrm -rf ~' } },
];
