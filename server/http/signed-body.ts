import type { Context } from 'hono';
import type { Caller } from './caller.js';
import { verifyDeviceSignature, type DeviceKeys } from './device-signature.js';
import { fail } from './errors.js';

type Vars = { Variables: { caller: Caller } };

/**
 * Reads a state-changing request's body once and, for a device, checks its signature over it
 * (SPEC §9a): a JSON object, or an empty body read as `{}`; anything else is refused, named.
 */
export async function signedBody(c: Context<Vars>, devices: DeviceKeys, now: number): Promise<{ body: Record<string, unknown> } | { error: Response }> {
  const caller = c.get('caller');
  const text = await c.req.text();
  if (caller.kind === 'device') {
    const problem = await verifyDeviceSignature(c, { id: caller.id, body: text }, devices, now);
    if (problem !== undefined) return { error: fail(c, 'FORBIDDEN', problem) };
  }
  if (text === '') return { body: {} };
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { error: fail(c, 'INPUT_INVALID', 'the body is a JSON object') };
    return { body: parsed as Record<string, unknown> };
  } catch {
    return { error: fail(c, 'INPUT_INVALID', 'the body is not JSON') };
  }
}
