import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';

/**
 * `oracle integrate` checks what it installed by running it once (SPEC §11): the command hook as
 * argv (the same program and arguments the settings name, without the shell around them), the
 * http hook as the POST Claude Code will send. Each answers with the raw text and exit status.
 */
export function runCommandHook(argv: readonly string[], payload: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [file, ...args] = argv;
  if (file === undefined) return Promise.resolve({ code: null, stdout: '', stderr: 'no command' });
  return new Promise((resolve) => {
    const child = execFile(file, args, { timeout: 30_000, maxBuffer: 1_048_576, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ code, stdout, stderr: error !== null && code === null ? `${stderr}${error.message}` : stderr });
    });
    child.stdin?.end(payload);
  });
}

export function postHttpHook(url: string, headers: Readonly<Record<string, string>>, caFile: string, payload: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    let ca: string;
    try {
      ca = readFileSync(caFile, 'utf8');
    } catch (e) {
      resolve({ status: 0, body: e instanceof Error ? e.message : 'no CA' });
      return;
    }
    const req = request(url, { method: 'POST', ca, headers: { ...headers, 'content-type': 'application/json' }, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (e) => {
      resolve({ status: 0, body: e.message });
    });
    req.end(payload);
  });
}
