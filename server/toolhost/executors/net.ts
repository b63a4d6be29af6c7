import { brokeredFetch } from '../../adapters/agent/egress.js';
import type { ToolhostEnv } from '../env.js';
import { failed, type ExecutionResult, type PreparedAction } from '../types.js';

/**
 * net.fetch through the egress broker (SPEC §6): the request exactly as the gate normalised it
 * (URL, method, headers after stripping), the allowlist checked again, DNS resolved once and the
 * checked address connected to. The response body is redacted before anyone sees it.
 */
export async function netFetch(action: PreparedAction<'net.fetch'>, env: ToolhostEnv): Promise<ExecutionResult> {
  const { url, method, headers, body } = action.args;
  const result = await brokeredFetch(
    { url, method, headers, ...(body === undefined ? {} : { body }) },
    { allow: env.gate.policy.egress.allow, resolve: env.resolve, maxBytes: env.limits.maxReadBytes, timeoutMs: 30_000, maxRedirects: 5, ...(action.signal === undefined ? {} : { signal: action.signal }) },
  );
  if (!result.ok) return failed(result.code, result.message);
  return {
    ok: result.status < 400,
    truncated: result.truncated,
    output: {
      status: result.status,
      url: result.finalUrl,
      address: result.address,
      // Response headers are output too: cookies are dropped, every other value redacted.
      headers: Object.fromEntries(Object.entries(result.headers).filter(([name]) => name.toLowerCase() !== 'set-cookie').map(([name, value]) => [name, env.redact(value, [])])),
      body: env.redact(new TextDecoder('utf-8').decode(result.body), []),
    },
    ...(result.status < 400 ? {} : { error: { code: 'HTTP_STATUS', message: `the server answered ${String(result.status)}` } }),
  };
}
