import { LitElement, html, nothing } from 'lit';
import { endedText, type TerminalView } from '../../../shared/terminal-view.js';
import { ApiError, request } from '../lib/api.js';
import { when } from '../lib/cards.js';
import { base } from '../ui/styles.js';

/** Lines of each terminal shown here: its screen and a little above it. */
const SHOWN_LINES = 40;

/**
 * The gate's terminals (issue 16), watched from the desktop: what each one shows now (redacted,
 * as an agent's term.read gets it), where it runs, whether it is sandboxed; Close kills its
 * processes. Typing is `oracle term attach NAME` in a real terminal on this computer.
 */
export class OracleTerminalsPanel extends LitElement {
  static override properties = { terminals: { state: true }, screens: { state: true }, problem: { state: true } };
  static override styles = [base];
  declare terminals: readonly TerminalView[];
  declare screens: Readonly<Record<string, string>>;
  declare problem: string;

  constructor() {
    super();
    this.terminals = [];
    this.screens = {};
    this.problem = '';
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  /** Reads the list again, and the screens (only `name`'s when given: its output changed). */
  async load(name?: string): Promise<void> {
    try {
      const { body } = await request<{ terminals: TerminalView[] }>('/api/v1/terms');
      this.terminals = body.terminals;
      const wanted = body.terminals.filter((t) => name === undefined || t.name === name);
      const read = await Promise.all(wanted.map(async (t) => [t.name, (await request<{ text: string }>(`/api/v1/terms/${encodeURIComponent(t.name)}?lines=${String(SHOWN_LINES)}`)).body.text] as const));
      const kept = Object.fromEntries(Object.entries(this.screens).filter(([n]) => body.terminals.some((t) => t.name === n)));
      this.screens = { ...kept, ...Object.fromEntries(read) };
      this.problem = '';
    } catch (e) {
      this.problem = e instanceof ApiError ? `${e.code}: ${e.message}` : 'could not read the terminals';
    }
  }

  private async close(name: string): Promise<void> {
    try {
      await request(`/api/v1/terms/${encodeURIComponent(name)}`, { method: 'DELETE' });
    } catch (e) {
      this.problem = e instanceof ApiError ? `${e.code}: ${e.message}` : 'the terminal was not closed';
    }
    await this.load();
  }

  override render() {
    return html`<section class="panel terminals" aria-labelledby="terminals-h">
      <h2 id="terminals-h">Terminals</h2>
      ${this.problem === '' ? nothing : html`<p class="error" role="alert">${this.problem}</p>`}
      ${this.terminals.length === 0
        ? html`<p class="muted">None open. <code>oracle term open NAME</code> starts one in the current folder; agents may then type one line at a time into it, each line asked here first.</p>`
        : nothing}
      ${this.terminals.map(
        (t) => html`<article class="terminal" data-name=${t.name} aria-label=${`terminal ${t.name}`}>
          <h3>${t.name} <span class="muted">· ${[t.program, ...t.args].join(' ')} · in <code>${t.cwd}</code> · ${t.exited === null ? `running since ${when(t.opened_at)}` : `ended ${when(t.exited.at)} (${endedText(t.exited)})`}</span></h3>
          ${t.sandbox === 'bubblewrap' ? html`<p class="muted">Sandboxed (bubblewrap): sees only this folder, minus what the policy denies; no network.</p>` : html`<p class="error">Not sandboxed: ${t.sandbox.replace(/^none: /u, '')}</p>`}
          <pre class="screen" tabindex="0" aria-label=${`what terminal ${t.name} shows`}>${this.screens[t.name] ?? ''}</pre>
          <p class="muted">Type in it: <code>oracle term attach ${t.name}</code></p>
          <button class="quiet close-terminal" @click=${() => void this.close(t.name)}>Close (kills its processes)</button>
        </article>`,
      )}
    </section>`;
  }
}
customElements.define('oracle-terminals-panel', OracleTerminalsPanel);
