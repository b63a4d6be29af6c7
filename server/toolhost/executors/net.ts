import { brokeredFetch } from '../../adapters/agent/egress.js';
import type { ToolhostEnv } from '../env.js';
import { failed, type ExecutionResult, type PreparedAction } from '../types.js';

/**
 * net.fetch through the egress broker (SPEC §6): the request exactly as the gate normalised it
 * (URL, method, headers after stripping), the allowlist checked again, DNS resolved once and the
 * checked address connected to. The response body is redacted before anyone sees it.
 *
 * Named secrets (`secrets`, approved by a person on a card naming each one, header and host) are
 * read from the store here, at the last moment, and go out only as those headers. What the model
 * wrote itself may not hold a stored secret's value (nor anything the redaction sink knows as a
 * secret): a card would show it redacted while the bytes went out raw, so it is refused unsent.
 */
export async function netFetch(action: PreparedAction<'net.fetch'>, env: ToolhostEnv): Promise<ExecutionResult> {
  const { url, method, headers, body, secrets } = action.args;
  const stored = env.knownSecrets();
  const carried = carriesSecret({ url, headers, body: body ?? '' }, (text) => env.redact(text, stored) !== text);
  if (carried !== undefined) return failed('EGRESS_DENIED', `the request's ${carried} holds the value of a stored secret or what looks like one; name a stored secret in \`secrets\` instead, so the card can say which goes where`);
  const credentials: Record<string, string> = {};
  const used: string[] = [];
  for (const [header, { secret, prefix }] of Object.entries(secrets ?? {})) {
    const value = await env.secrets?.get(secret);
    if (value === undefined) return failed('SECRET_MISSING', env.secrets === undefined ? `no secret store is available on this host (${env.secretsReason})` : `no secret named \`${secret}\` (store one with \`oracle secrets set ${secret}\`)`);
    credentials[header] = `${prefix}${value}`;
    used.push(value);
  }
  const result = await brokeredFetch(
    { url, method, headers, ...(body === undefined ? {} : { body }), ...(used.length === 0 ? {} : { credentials }) },
    { allow: env.gate.policy.egress.allow, resolve: env.resolve, maxBytes: env.limits.maxReadBytes, timeoutMs: 30_000, maxRedirects: 5, ...(action.signal === undefined ? {} : { signal: action.signal }) },
  );
  if (!result.ok) return failed(result.code, result.message);
  // A server may echo what it got (a debug endpoint, an error page): the values never come back.
  const known = [...stored, ...used];
  return {
    ok: result.status < 400,
    truncated: result.truncated,
    output: {
      status: result.status,
      url: env.redact(result.finalUrl, known),
      address: result.address,
      // Response headers are output too: cookies are dropped, every other value redacted.
      headers: Object.fromEntries(Object.entries(result.headers).filter(([name]) => name.toLowerCase() !== 'set-cookie').map(([name, value]) => [name, env.redact(value, known)])),
      body: env.redact(new TextDecoder('utf-8').decode(result.body), known),
    },
    ...(secrets === undefined ? {} : { secrets_read: Object.values(secrets).map((s) => s.secret) }),
    ...(result.status < 400 ? {} : { error: { code: 'HTTP_STATUS', message: `the server answered ${String(result.status)}` } }),
  };
}

/** Where a model-written part of the request holds a secret, by name of the part, never the value. */
function carriesSecret(request: { readonly url: string; readonly headers: Readonly<Record<string, string>>; readonly body: string }, holds: (text: string) => boolean): string | undefined {
  if (holds(request.url)) return 'URL';
  const header = Object.entries(request.headers).find(([name, value]) => holds(`${name}: ${value}`));
  if (header !== undefined) return `header \`${header[0]}\``;
  return request.body !== '' && holds(request.body) ? 'body' : undefined;
}
