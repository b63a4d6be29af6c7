import { LitElement, html, css, nothing } from 'lit';
import type { PolicyCandidateView } from '../../../shared/policy-candidate-view.js';
import { ApiError, json, request } from '../lib/api.js';
import { when } from '../lib/cards.js';
import { base } from '../ui/styles.js';

/**
 * Policy changes agents proposed (issue 16): what each changes in policy terms (which paths,
 * programs, hosts and agents gain or lose what), who proposed it and why, then Activate, which
 * names the policy in force this screen showed the changes against (the gate refuses when it moved
 * on), with the typed phrase when the change widens what agents may do; or Discard.
 */
export class OracleCandidatesPanel extends LitElement {
  static override properties = { candidates: { state: true }, problem: { state: true }, phrases: { state: true }, busy: { state: true } };
  static override styles = [
    base,
    css`
      li.gains {
        color: var(--ok);
      }
      li.loses {
        color: var(--danger-ink);
      }
      li .widens {
        font-weight: 700;
      }
      ul.changes {
        margin: 0.25rem 0 0.5rem;
        padding-left: 1.2rem;
      }
      article {
        border-top: 1px solid var(--line);
        padding-top: 0.5rem;
        margin-top: 0.5rem;
      }
    `,
  ];
  declare candidates: readonly PolicyCandidateView[];
  declare problem: string;
  declare phrases: Readonly<Record<string, string>>;
  declare busy: boolean;

  constructor() {
    super();
    this.candidates = [];
    this.problem = '';
    this.phrases = {};
    this.busy = false;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  async load(): Promise<void> {
    try {
      this.candidates = (await request<{ candidates: PolicyCandidateView[] }>('/api/v1/policy/candidates')).body.candidates;
    } catch (e) {
      this.problem = e instanceof ApiError ? `${e.code}: ${e.message}` : 'could not read the policy candidates';
    }
  }

  private async act(c: PolicyCandidateView, what: 'activate' | 'discard'): Promise<void> {
    this.busy = true;
    try {
      await request(`/api/v1/policy/candidates/${encodeURIComponent(c.id)}/${what}`, json('POST', what === 'activate' ? { active_digest: c.active_digest, phrase: this.phrases[c.id] ?? '' } : {}));
      this.problem = '';
      this.dispatchEvent(new CustomEvent('policy-changed', { bubbles: true, composed: true }));
    } catch (e) {
      this.problem = e instanceof ApiError ? `${e.code}: ${e.message}` : `the ${what} failed`;
    } finally {
      this.busy = false;
      await this.load();
    }
  }

  override render() {
    if (this.candidates.length === 0 && this.problem === '') return nothing;
    return html`<section class="panel" aria-labelledby="candidates-h">
      <h2 id="candidates-h">Proposed policy changes (${this.candidates.length})</h2>
      <p class="muted">Agents proposed these; none is in force until you activate it here.</p>
      ${this.problem === '' ? nothing : html`<p class="error" role="alert">${this.problem}</p>`}
      ${this.candidates.map(
        (c) => html`<article class="candidate">
          <p><strong>${c.proposed_by}</strong> proposed, ${when(c.proposed_at)}${c.reason === '' ? '' : `: “${c.reason}”`}</p>
          ${c.stale ? html`<p class="error">Proposed against another policy than the one in force: the changes below are against the policy in force now.</p>` : nothing}
          ${c.changes.length === 0 ? html`<p class="muted">It changes nothing a decision reads.</p>` : nothing}
          <ul class="changes">
            ${c.changes.map((ch) => html`<li class=${ch.effect}>${ch.effect} ${ch.what}${ch.widens ? html` <span class="widens">(widens what agents may do)</span>` : nothing}</li>`)}
          </ul>
          <details><summary>The proposed file</summary><pre>${c.text}</pre></details>
          ${c.phrase === null
            ? nothing
            : html`<label for="phrase-${c.id}">Type <code>${c.phrase}</code> to activate</label>
                <input id="phrase-${c.id}" class="candidate-phrase" .value=${this.phrases[c.id] ?? ''} @input=${(e: Event) => { this.phrases = { ...this.phrases, [c.id]: (e.target as HTMLInputElement).value }; }} autocomplete="off" spellcheck="false" />`}
          <div class="row">
            <button class="primary activate" ?disabled=${this.busy || (c.phrase !== null && this.phrases[c.id] !== c.phrase)} @click=${() => void this.act(c, 'activate')}>Activate</button>
            <button class="quiet discard" ?disabled=${this.busy} @click=${() => void this.act(c, 'discard')}>Discard</button>
          </div>
        </article>`,
      )}
    </section>`;
  }
}
customElements.define('oracle-candidates-panel', OracleCandidatesPanel);
