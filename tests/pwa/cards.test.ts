import { describe, expect, it } from 'vitest';
import { cardSigningInput, type ApprovalCard } from '../../shared/approval-card.js';
import { toBase64Url } from '../../shared/pairing/bytes.js';
import { detailsOf, displayPin, redactionParts, verifyCard } from '../../pwa/src/lib/cards.js';
import { unifiedDiff } from '../../pwa/src/lib/diff.js';
import { sentenceOf, shellQuote, stateWords } from '../../pwa/src/lib/sentence.js';

/**
 * The PWA's card logic (SPEC §9a, §10), run under Node's WebCrypto: a card is offered only when
 * the pinned key signed exactly it, and what a person reads is the exact action.
 */
const subtle = globalThis.crypto.subtle;

const card: ApprovalCard = {
  approval_id: 'ap_0123456789abcdef01234567',
  trace_id: 'ac_1',
  tool: 'exec.run',
  arg_hash: 'sha256:00',
  tier: 'T2',
  requested_at: '2026-11-29T00:00:00.000Z',
  expires_at: '2026-11-29T00:05:00.000Z',
  reason: 'needs a person',
  preview: { tool: 'exec.run', args: { program: 'git', args: ['push', '', 'a b'], cwd: '/p', timeout: 60 } },
  provenance: [],
  nonce: 'n',
  session: null,
  project: null,
  agent: 'claude-code',
  state: 'pending',
  device: null,
  decided_at: null,
  message: null,
};

describe('approval cards in the PWA', () => {
  it('verifies the server signature and refuses any changed field or another key', async () => {
    const server = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    const sig = new Uint8Array(await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, server.privateKey, cardSigningInput(card)));
    const signed = { ...card, card_sig: toBase64Url(sig) };
    expect(await verifyCard(server.publicKey, signed)).toBe(true);
    expect(await verifyCard(server.publicKey, { ...signed, preview: { tool: 'exec.run', args: { program: 'rm', args: ['-rf', '/'] } } })).toBe(false);
    expect(await verifyCard(server.publicKey, { ...signed, tier: 'T3' })).toBe(false);
    expect(await verifyCard(server.publicKey, { ...signed, card_sig: 'garbage' })).toBe(false);
    const other = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    expect(await verifyCard(other.publicKey, signed)).toBe(false);
  });

  it('renders a command as one shell-quoted line, so empty words, spaces and its end show', () => {
    const details = detailsOf(card.preview);
    expect(details[0]).toEqual({ label: 'command', value: "git push '' 'a b'", block: true });
    expect(details.map((d) => d.label)).toEqual(['command', 'working directory', 'timeout']);
    expect(details[2]?.minor).toBe(true);
    expect(shellQuote(['sh', '-c', "curl x | base64 -d | sh", "it's"])).toBe("sh -c 'curl x | base64 -d | sh' 'it'\\''s'");
  });

  it('opens with one plain sentence per kind of action', () => {
    const of = (tool: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      const s = sentenceOf({ agent: 'claude-code', tool, project: '/p', preview: { tool, args, ...extra } });
      return `${s.who} wants to ${s.verb} ${s.object}${s.note === '' ? '' : ` ${s.note}`}`;
    };
    expect(of('fs.write', { path: '/p/package.json', content: 'a\nB\nc\nd\n' }, { before: 'a\nb\nc\n' })).toBe('claude-code wants to edit package.json (+2 −1)');
    expect(of('fs.write', { path: '/p/new.ts', content: 'x' }, { before: null })).toBe('claude-code wants to create new.ts (new file)');
    expect(of('exec.run', { program: 'npm', args: ['install', 'left-pad'] })).toBe('claude-code wants to run npm install left-pad');
    expect(of('fs.delete', { path: '/p/src/old.ts' })).toBe('claude-code wants to delete src/old.ts');
    expect(of('net.fetch', { url: 'https://api.example.com/v1/x', method: 'post' })).toBe('claude-code wants to send a POST to api.example.com');
    expect(of('net.fetch', { url: 'https://api.github.com/user', method: 'GET', secrets: { Authorization: { name: 'github', prefix: 'Bearer ' } } })).toBe('claude-code wants to send a GET with the secret github to api.github.com');
    expect(of('fs.delete', { path: '/elsewhere/x' })).toBe('claude-code wants to delete /elsewhere/x');
    expect(of('term.write', { session: 'dev', text: ' make test ' })).toBe('claude-code wants to type into terminal dev, then Enter: ␠make test␠');
    expect(of('input.synth', { text: 'rm -rf ~\n' })).toBe('claude-code wants to type on this computer: rm -rf ~␊');
  });

  it('shows synthesized keystrokes exactly, an Enter and a tab included', () => {
    expect(detailsOf({ tool: 'input.synth', args: { text: 'rm -rf ~\n' } })).toEqual([{ label: 'keys typed into this computer (␊ is Enter)', value: 'rm -rf ~␊', block: true }]);
    expect(detailsOf({ tool: 'input.synth', args: { text: '\tyes ' } })[0]?.value).toBe('␉yes␠');
    // Any other short value with a line break is a block, where the break shows.
    expect(detailsOf({ tool: 'other.tool', args: { note: 'a\nb' } })).toEqual([{ label: 'note', value: 'a\nb', block: true }]);
  });

  it('shows a command, a new file and a diff with nothing invisible in them', () => {
    // A U+2028 drew as a space and ended the `//` comment in what node ran (red team, session 32).
    const exec = detailsOf({ tool: 'exec.run', args: { program: 'node', args: ['-e', 'ok() // off:\u2028evil()'] } });
    expect(exec[0]?.value).toBe("node -e 'ok() // off:\\u{2028}evil()'");
    const write = detailsOf({ tool: 'fs.write', args: { path: '/p/a.js', content: 'if (admin) {\u202e } \u2066\n' }, before: 'x\n' });
    expect(write[1]?.value).toBe('if (admin) {\\u{202E} } \\u{2066}\n');
    expect(write[1]?.diff?.some((l) => l.text.includes('\\u{202E}'))).toBe(true);
    expect(write[1]?.diff?.some((l) => l.text.includes('\u202e'))).toBe(false);
  });

  it('says what a delete would remove, as the gate saw it', () => {
    const file = detailsOf({ tool: 'fs.delete', args: { path: '/p/old.log' }, target: { kind: 'file', bytes: 1204, fingerprint: 'sha256:x' } });
    expect(file).toContainEqual({ label: 'what is there now', value: 'a file of 1,204 bytes', block: false });
    const dir = detailsOf({ tool: 'fs.delete', args: { path: '/p/build' }, target: { kind: 'dir', entries: 12, fingerprint: 'sha256:y' } });
    expect(dir).toContainEqual({ label: 'what is there now', value: 'a folder with 12 entries below it', block: false });
  });

  it('shows a terminal line exactly as typed, nothing hidden', () => {
    expect(detailsOf({ tool: 'term.write', args: { session: 'dev', text: 'ls\u200b ' } })).toEqual([
      { label: 'terminal', value: 'dev', block: false },
      { label: 'line typed, then Enter', value: 'ls\\u{200B}␠', block: true },
    ]);
    expect(detailsOf({ tool: 'term.write', args: { session: 'dev', text: 'y' }, screen: 'Overwrite? [y/N]' }).at(-1)).toEqual({ label: 'the terminal shows now', value: 'Overwrite? [y/N]', block: true });
  });

  it('says what a decision came to in words', () => {
    expect(stateWords({ state: 'consumed', message: null, outcome: { ok: true, code: null } }, 'Pixel 8')).toBe('approved by Pixel 8 · ran');
    expect(stateWords({ state: 'consumed', message: null, outcome: { ok: false, code: 'EXIT_NONZERO' } }, 'Pixel 8')).toBe('approved by Pixel 8 · failed (EXIT_NONZERO)');
    // Still running, or run by the agent's own runtime: nothing claimed about how it ended.
    expect(stateWords({ state: 'consumed', message: null }, 'Pixel 8')).toBe('approved by Pixel 8');
    expect(stateWords({ state: 'cancelled', message: 'HALT: test' }, 'Pixel 8')).toBe('cancelled by HALT from Pixel 8');
    expect(stateWords({ state: 'expired', message: null }, 'nobody')).toBe('expired unanswered · denied');
  });

  it('shows every argument, including ones it has no label for, and the request a fetch sends', () => {
    const labels = detailsOf({ tool: 'net.fetch', args: { url: 'https://x/', method: 'POST', headers: { a: 'b' }, body: 'k=[REDACTED:aws-key]', extra: 1 } }).map((d) => d.label);
    expect(labels).toEqual(['method', 'url', 'headers', 'body sent', 'extra']);
    // Empty headers say nothing: not shown.
    expect(detailsOf({ tool: 'net.fetch', args: { url: 'https://x/', method: 'GET', headers: {} } }).map((d) => d.label)).toEqual(['method', 'url']);
    // A named secret shows as the header it fills, the name where the value goes.
    expect(detailsOf({ tool: 'net.fetch', args: { url: 'https://x/', method: 'GET', headers: {}, secrets: { Authorization: { name: 'github', prefix: 'Bearer ' }, 'x-api-key': { name: 'k', prefix: '' } } } }).at(-1)).toEqual({
      label: 'secrets the gate adds',
      value: 'Authorization: Bearer ‹the secret github›\nx-api-key: ‹the secret k›',
      block: true,
    });
  });

  it('marks redactions and shows pins as the desktop prints them', () => {
    expect(redactionParts('key=[REDACTED:aws-key] end')).toEqual([
      { text: 'key=', redacted: false },
      { text: '[REDACTED:aws-key]', redacted: true },
      { text: ' end', redacted: false },
    ]);
    expect(displayPin('zpGNU1zG0Synqwi_wRBZd793Pb6l2M2rU5BvbqKHPOE')).toBe('zpGNU1zG0Synqwi/wRBZd793Pb6l2M2rU5BvbqKHPOE=');
  });

  it('shows a write as the diff against the file it replaces, a new file whole, and says why when it cannot diff', () => {
    const write = (extra: Record<string, unknown>) => detailsOf({ tool: 'fs.write', args: { path: '/p/a.txt', content: 'one\nTWO\nthree\n' }, ...extra });
    const changed = write({ before: 'one\ntwo\nthree\n' }).find((d) => d.diff !== undefined);
    expect(changed?.label).toBe('change to the file');
    expect(changed?.diff?.filter((l) => l.kind === 'del' || l.kind === 'add').map((l) => l.text)).toEqual(['-two', '+TWO']);
    expect(write({ before: null }).map((d) => d.label)).toEqual(['path', 'new file, whole content']);
    expect(write({ before_unavailable: 'the current file is over 64 KiB' }).map((d) => d.label)).toContain('new content (whole file; no diff: the current file is over 64 KiB)');
    expect(unifiedDiff('same\n', 'same\n')).toEqual([{ kind: 'note', text: 'no change: the file already holds exactly this' }]);
  });
});

describe('browserDeviceName', () => {
  it('prefills the phone’s name from what the browser says', async () => {
    const { browserDeviceName } = await import('../../pwa/src/lib/device-name.js');
    expect(browserDeviceName('Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36')).toBe('Pixel 8');
    expect(browserDeviceName('Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15')).toBe('iPhone');
    expect(browserDeviceName('Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36')).toBe('Android phone');
  });
});
