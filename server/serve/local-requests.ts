import type { LocalHandler } from '../adapters/local-socket.js';
import type { Runtime } from '../app/runtime.js';
import type { CallerVerifier } from '../http/caller.js';
import type { HookAnswers } from './hook-answers.js';
import { parseJsonWithin } from '../../shared/json-depth.js';

/**
 * What the gate's local channel answers (adapters/local-socket.ts): agent credentials only, the
 * same check as the HTTPS API; a hook payload, or an action of `oracle mcp`.
 */
export function localRequests(deps: { readonly callers: CallerVerifier; readonly runtime: Runtime; readonly hooks: HookAnswers }): LocalHandler {
  const { callers, runtime, hooks } = deps;
  return async ({ authorization, body, pid, route, signal }) => {
    const caller = await callers.verify({ authorization, cookie: undefined, loopback: false, address: 'local' });
    if (caller?.kind !== 'agent') return route.kind === 'hook' ? { error: 'this channel needs an agent credential' } : { refused: { code: 'UNAUTHENTICATED', message: 'this channel needs an agent credential' } };
    // Too deep, or not JSON: a hook answers it as malformed, an action is refused below.
    const parsed = parseJsonWithin(body.toString('utf8'));
    const payload: unknown = parsed.ok ? parsed.value : undefined;
    if (route.kind === 'hook') return hooks.claudeCodeHook(payload, caller.name, pid === undefined ? undefined : { pid });
    // An action of `oracle mcp`, exactly as `POST /api/v1/actions` takes it (one JSON object; the
    // credential is the principal), answered as { outcome }, or { refused: { code, message } } when
    // the channel itself refuses, so that is never mistaken for the action's own error.
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return { refused: { code: 'INPUT_INVALID', message: 'the action is one JSON object' } };
    if (pid !== undefined) hooks.registerClient({ pid }, `${caller.name}:${String(pid)}`)();
    // The credential is the principal, never a field of the body.
    const { agent: _claimed, ...action } = payload as Record<string, unknown>;
    return { outcome: await runtime.submit(action, route.waitS * 1000, caller.name, signal) };
  };
}
