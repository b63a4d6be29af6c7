import { CLIENT_PID_HEADER } from '../../shared/client-process.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LocalGate {
  readonly url: string;
  readonly pid: number;
  readonly token: string;
  /** The gate's local channel (a Unix socket), when it has one. */
  readonly socket?: string;
}

/** The running gate of this home, as `oracle serve` recorded it (undefined when none runs). */
export function localGate(home: string): LocalGate | undefined {
  try {
    const info = JSON.parse(readFileSync(join(home, 'data', 'server.json'), 'utf8')) as LocalGate;
    process.kill(info.pid, 0);
    return info;
  } catch {
    return undefined;
  }
}

/**
 * Whether the gate answers its health route within `timeoutMs` (any HTTP answer counts: the
 * process is alive and serving), trusting only this home's CA.
 */
export async function gateAnswers(home: string, gate: LocalGate, timeoutMs = 3_000): Promise<boolean> {
  const ca = readFileSync(join(home, 'certs', 'ca.crt'), 'utf8');
  const { request } = await import('node:https');
  return new Promise((resolve) => {
    const req = request(`${gate.url}/api/v1/health`, { method: 'GET', ca, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 0) > 0);
    });
    req.on('timeout', () => req.destroy(new Error('no answer in time')));
    req.on('error', () => {
      resolve(false);
    });
    req.end();
  });
}

/** A request to the local gate as the desktop, trusting only this home's CA. */
export function desktopRequest(home: string, gate: LocalGate, call: { method: string; path: string; body?: unknown }): Promise<{ status: number; body: Record<string, unknown> }> {
  return localRequest(home, gate, { ...call, authorization: `Desktop ${gate.token}` });
}

/**
 * A request to the local gate with the given credential, trusting only this home's CA. The body is
 * sent as JSON, or as the bytes given (a hook payload exactly as Claude Code sent it). Anything but
 * a JSON object in answer is reported as status 0 with the reason: a caller never mistakes a broken
 * answer for an empty one.
 */
export async function localRequest(home: string, gate: LocalGate, call: { method: string; path: string; body?: unknown; authorization: string; timeoutMs?: number; signal?: AbortSignal }): Promise<{ status: number; body: Record<string, unknown> }> {
  const { method, path, body } = call;
  const ca = readFileSync(join(home, 'certs', 'ca.crt'), 'utf8');
  // Loaded here, not at the top: the hook's thin client uses the local channel and never pays for TLS.
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(`${gate.url}${path}`, { method, ca, headers: { authorization: call.authorization, 'content-type': 'application/json', [CLIENT_PID_HEADER]: String(process.pid) }, timeout: call.timeoutMs ?? 150_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        let answer: unknown;
        try {
          answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          answer = undefined;
        }
        if (typeof answer === 'object' && answer !== null && !Array.isArray(answer)) resolve({ status: res.statusCode ?? 0, body: answer as Record<string, unknown> });
        else resolve({ status: 0, body: { error: `the gate answered HTTP ${String(res.statusCode ?? 0)} without a JSON object` } });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('the gate did not answer in time')));
    // Hanging up is how a caller withdraws what it asked (the gate sees the connection close).
    if (call.signal?.aborted === true) req.destroy(new Error('withdrawn by the caller'));
    call.signal?.addEventListener('abort', () => req.destroy(new Error('withdrawn by the caller')), { once: true });
    req.on('error', reject);
    req.end(body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body));
  });
}

/** The agent token `oracle integrate` stored for a hook, if any. */
export function hookToken(home: string, agent: string): string | undefined {
  try {
    return readFileSync(join(home, 'data', `hook-${agent}.token`), 'utf8').trim();
  } catch {
    return undefined;
  }
}
