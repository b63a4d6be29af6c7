import { brokeredFetch } from '../../adapters/agent/egress.js';
import { MIN_REFUSED_SECRET, storedSecretIn } from '../../core/decide/fetch-secrets.js';
import { withoutPartialSecret } from '../../core/redact/index.js';
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
  // The decision refused what it saw stored when it judged; this is the value at send time (a
  // `oracle secrets set` since). Too short a value would refuse ordinary requests; it is still
  // hidden in every output.
  const refusable = stored.filter((v) => v.length >= MIN_REFUSED_SECRET);
  const carried = storedSecretIn({ url, headers, body: body ?? '', secrets: secrets ?? {} }, refusable);
  if (carried !== undefined) return failed('EGRESS_DENIED', `the request's ${carried} holds the value of a secret in ORACLE's store; name it in \`secrets\` instead, so the card can say which secret goes where`);
  const credentials: Record<string, string> = {};
  const used: string[] = [];
  for (const [header, { name, prefix }] of Object.entries(secrets ?? {})) {
    const value = await env.secrets?.get(name);
    if (value === undefined) return failed('SECRET_MISSING', env.secrets === undefined ? `no secret store is available on this host (${env.secretsReason})` : `no secret named \`${name}\` (store one with \`oracle secrets set ${name}\`)`);
    credentials[header] = `${prefix}${value}`;
    used.push(value);
  }
  // A server may echo what it got (a debug endpoint, an error page, a Location the broker quotes),
  // also lower-cased (a host name): the values never come back, in any part of the result.
  const known = [...new Set([...stored, ...used].flatMap((v) => [v, v.toLowerCase()]))];
  const hide = (text: string): string => env.redact(text, known);
  const result = await brokeredFetch(
    { url, method, headers, ...(body === undefined ? {} : { body }), ...(used.length === 0 ? {} : { credentials }) },
    { allow: env.gate.policy.egress.allow, resolve: env.resolve, maxBytes: env.limits.maxReadBytes, timeoutMs: 30_000, maxRedirects: 5, ...(action.signal === undefined ? {} : { signal: action.signal }) },
  );
  if (!result.ok) return failed(result.code, hide(result.message));
  const text = new TextDecoder('utf-8').decode(result.body);
  return {
    ok: result.status < 400,
    truncated: result.truncated,
    output: {
      status: result.status,
      url: hide(result.finalUrl),
      address: result.address,
      // Response headers are output too: cookies are dropped, every other name and value redacted.
      headers: Object.fromEntries(Object.entries(result.headers).filter(([name]) => name.toLowerCase() !== 'set-cookie').map(([name, value]) => [hide(name), hide(value)])),
      // A body cut at the cap may end inside a value, where the whole value cannot be recognised.
      body: hide(result.truncated ? withoutPartialSecret(text, known) : text),
    },
    ...(secrets === undefined ? {} : { secrets_read: Object.values(secrets).map((s) => s.name) }),
    ...(result.status < 400 ? {} : { error: { code: 'HTTP_STATUS', message: `the server answered ${String(result.status)}` } }),
  };
}

