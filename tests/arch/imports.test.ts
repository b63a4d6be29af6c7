import { describe, expect, it } from 'vitest';
import { checkImports } from './import-rules.js';
import { sourceFiles } from './source-files.js';

describe('architecture: import rules (SPEC §2)', () => {
  it('holds for every source file in the repository', () => {
    const files = sourceFiles();
    expect(files.some((f) => f.path.startsWith('server/core/'))).toBe(true);
    expect(checkImports(files)).toEqual([]);
  });

  // The checker must catch each kind of violation, or the test above proves nothing.
  it.each([
    ['server/core/x.ts', "import { readFileSync } from 'node:fs';", 'core is pure: no node:* import'],
    ['server/core/x.ts', "import path from 'path';", 'core is pure: no node:* import'],
    ['server/core/x.ts', "export { x } from '../adapters/link-reader.js';", 'core imports only core and shared'],
    ['server/core/x.ts', "import { Hono } from 'hono';", 'core may use only yaml, zod, picomatch, canonicalize'],
    ['server/core/x.ts', "const m = await import('node:child_process');", 'core is pure: no node:* import'],
    ['server/core/x.ts', "import type { Stats } from 'node:fs';", 'core is pure: no node:* import'],
    ['shared/x.ts', "import { createHash } from 'node:crypto';", 'shared is portable: no node:* import'],
    ['shared/x.ts', "import { html } from 'lit';", 'shared may use only zod, canonicalize'],
    ['pwa/src/x.ts', "import { readFileSync } from 'node:fs';", 'pwa runs in a browser: no node:* import'],
    ['pwa/src/x.ts', "import { decide } from '../../server/core/decide/decide.js';", 'pwa never imports server'],
    ['shared/x.ts', "import { decide } from '../server/core/decide/decide.js';", 'shared imports only shared'],
    ['pwa/app.ts', "import { createApp } from '../server/http/app.js';", 'pwa never imports server'],
    ['server/http/x.ts', "import { nodeLinkReader } from '../adapters/link-reader.js';", 'http never imports adapters'],
    ['server/toolhost/x.ts', "import { spawn } from 'node:child_process';", 'only server/adapters touches fs, child_process and sockets'],
    ['server/cli/x.ts', "const fs = require('fs');", 'only server/adapters touches fs, child_process and sockets'],
    ['server/main.ts', "import { createServer } from 'node:https';", 'only server/adapters touches fs, child_process and sockets'],
    ['server/cli/x.ts', "import { ProcessSupervisor } from '../adapters/agent/process.js';", 'only the toolhost uses the agent adapters (one execution boundary)'],
    ['server/http/x.ts', "import { commitFile } from '../adapters/agent/files.js';", 'only the toolhost uses the agent adapters (one execution boundary)'],
    ['server/cli/x.ts', "import { memoryReader } from '../../tests/fixtures/memory-fs.js';", 'nothing outside tests imports tests'],
    ['server/app/x.ts', "import { createApp } from '../http/app.js';", 'app never imports the edges (http, cli, mcp, serve, main)'],
    ['server/app/x.ts', "import type { Running } from '../main.js';", 'app never imports the edges (http, cli, mcp, serve, main)'],
    ['server/app/x.ts', "import { runMcp } from '../mcp/server.js';", 'app never imports the edges (http, cli, mcp, serve, main)'],
    ['server/app/x.ts', "import { hookAnswers } from '../serve/hook-answers.js';", 'app never imports the edges (http, cli, mcp, serve, main)'],
    ['server/core/x.ts', "import type { Runtime } from '../app/runtime.js';", 'core, adapters, toolhost, shared and pwa never import app'],
    ['server/toolhost/x.ts', "import { ApprovalDesk } from '../app/approval-desk.js';", 'core, adapters, toolhost, shared and pwa never import app'],
    ['server/adapters/x.ts', "import { EventHub } from '../app/events.js';", 'core, adapters, toolhost, shared and pwa never import app'],
    ['server/cli/x.ts', "const m = await import(name);", 'computed imports and createRequire hide what is imported'],
    ['server/cli/x.ts', "import { createRequire } from 'node:module'; const r = createRequire(import.meta.url);", 'computed imports and createRequire hide what is imported'],
  ])('catches %s: %s', (path, text, rule) => {
    expect(checkImports([{ path, text }]).map((v) => v.rule)).toContain(rule);
  });

  it('lets the edges use the application layer', () => {
    for (const path of ['server/http/x.ts', 'server/cli/x.ts', 'server/mcp/x.ts', 'server/main.ts']) {
      expect(checkImports([{ path, text: path === 'server/main.ts' ? "import { openRuntime } from './app/runtime.js';" : "import { openRuntime } from '../app/runtime.js';" }])).toEqual([]);
    }
  });

  it('lets adapters and tests use the node APIs they need', () => {
    expect(checkImports([{ path: 'server/adapters/x.ts', text: "import { spawn } from 'node:child_process';" }])).toEqual([]);
    expect(checkImports([{ path: 'tests/e2e/x.test.ts', text: "import { writeFileSync } from 'node:fs';" }])).toEqual([]);
  });
});
