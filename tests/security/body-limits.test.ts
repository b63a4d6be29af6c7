import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentGate, type AgentGate } from '../fixtures/agent-gate.js';

/**
 * Issue 14 point 1, through the real HTTPS server: a 400 MB body to a route that reads one is
 * refused at its limit, streamed or declared, and the gate's memory does not follow it.
 */
const MB = 1024 * 1024;
/** What the gate may grow by while refusing 400 MB (its heap churns a little under TLS). */
const GROWTH_BOUND = 64 * MB;

describe('body limits on the real HTTPS server', () => {
  let gate: AgentGate;
  beforeAll(async () => {
    gate = await startAgentGate('oracle-body-limits-', ['fs.read']);
  });
  afterAll(async () => {
    await gate.close();
  });

  /** Sends `total` bytes in 1 MiB chunks (no Content-Length unless `declare`), as fast as the socket takes them. */
  const flood = (path: string, total: number, declare: boolean): Promise<{ status: number; sent: number }> =>
    new Promise((resolve, reject) => {
      let sent = 0;
      let status = 0;
      const headers: Record<string, string> = { authorization: `Bearer ${gate.token}`, 'content-type': 'application/json', ...(declare ? { 'content-length': String(total) } : {}) };
      const req = request(`${gate.running.url}${path}`, { method: 'POST', ca: gate.ca, agent: false, headers }, (res) => {
        status = res.statusCode ?? 0;
        res.resume();
        res.on('end', () => {
          resolve({ status, sent });
        });
      });
      const chunk = Buffer.alloc(MB, 0x78);
      const pump = (): void => {
        while (sent < total) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end();
      };
      // The gate answering early and closing is the point; the rest of the upload is cut off.
      req.on('error', (e) => {
        if (status !== 0) resolve({ status, sent });
        else reject(e);
      });
      req.on('close', () => {
        if (status !== 0) resolve({ status, sent });
      });
      pump();
    });

  it.each([
    ['streamed without a length', false],
    ['declared up front', true],
  ])('refuses 400 MB to the provenance route %s, and memory stays bounded', async (_label, declare) => {
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sample = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    try {
      const reply = await flood('/api/v1/sessions/s1/provenance', 400 * MB, declare);
      expect(reply.status).toBe(413);
      // The gate stopped reading long before the end of the upload.
      expect(reply.sent).toBeLessThan(400 * MB);
    } finally {
      clearInterval(sample);
    }
    expect(peak - before).toBeLessThan(GROWTH_BOUND);
  }, 60_000);

  it('refuses an oversized HALT before checking any signature over it', async () => {
    const reply = await flood('/api/v1/halt', 2 * MB, false);
    expect(reply.status).toBe(413);
    expect(gate.running.runtime.mode()).not.toBe('halted');
  }, 30_000);
});
