import { LitElement, html, css, nothing } from 'lit';
import { confirmationPhrase, type SignedCard } from '../../../shared/approval-card.js';
import { detailsOf, redactionParts, type Detail } from '../lib/cards.js';
import { base } from './styles.js';
import './countdown.js';

export type CardCheck = 'checking' | 'verified' | 'bad-signature' | 'key-unavailable';

export interface Answer {
  readonly verdict: 'approve' | 'deny';
  readonly message?: string;
  readonly phrase?: string;
}

/**
 * One pending approval (SPEC §10): the exact action (argv / path / content / request, every value
 * escaped text with redactions marked), tier, who asked, what the session read (taint), the
 * expiry countdown. A phone answers T2 only; a T3 card says "desktop only" and offers nothing;
 * the desktop approves T3 with the typed phrase. Nothing is offered before the card's server
 * signature verified against the pinned key.
 */
export class OracleCard extends LitElement {
  static override properties = { card: { attribute: false }, check: {}, screen: {}, busy: { type: Boolean }, problem: {}, phrase: { state: true }, message: { state: true } };
  static override styles = [
    base,
    css`
      :host {
        display: block;
        margin: 0 0 1rem;
      }
      article {
        border: 2px solid var(--line);
        border-radius: 10px;
        padding: 0.75rem;
        background: var(--bg);
      }
      article.T3 {
        border-color: var(--danger);
      }
      dl {
        margin: 0.5rem 0;
      }
      dt {
        font-weight: 700;
        font-size: 0.85rem;
        color: var(--muted);
        margin-top: 0.5rem;
      }
      dd {
        margin: 0.15rem 0 0;
        overflow-wrap: anywhere;
      }
      .actions {
        margin-top: 0.75rem;
      }
      .actions button {
        flex: 1 1 8rem;
      }
      .taint {
        color: var(--warn);
        font-weight: 600;
      }
      pre.diff > span {
        display: block;
      }
      pre.diff > .add {
        background: #e6ffec;
        color: #055d20;
      }
      pre.diff > .del {
        background: #ffebe9;
        color: #82071e;
      }
      pre.diff > .hunk,
      pre.diff > .note {
        color: var(--muted);
      }
    `,
  ];
  declare card: SignedCard;
  declare check: CardCheck;
  declare screen: 'phone' | 'desktop';
  declare busy: boolean;
  declare problem: string;
  declare phrase: string;
  declare message: string;

  constructor() {
    super();
    this.check = 'checking';
    this.screen = 'phone';
    this.busy = false;
    this.problem = '';
    this.phrase = '';
    this.message = '';
  }

  private answer(verdict: 'approve' | 'deny'): void {
    const detail: Answer = { verdict, ...(this.message.trim() === '' ? {} : { message: this.message.trim() }), ...(verdict === 'approve' && this.card.tier === 'T3' ? { phrase: this.phrase } : {}) };
    this.dispatchEvent(new CustomEvent<Answer>('answer', { detail, bubbles: true, composed: true }));
  }

  private marked(text: string) {
    return redactionParts(text).map((p) => (p.redacted ? html`<mark class="redacted" title="a secret, hidden on this card (the action itself holds the real value; a request carrying one is never sent)">${p.text}</mark>` : p.text));
  }

  private value(d: Detail) {
    if (d.diff !== undefined) return html`<pre class="diff">${d.diff.map((line) => html`<span class=${line.kind}>${this.marked(line.text)}</span>`)}</pre>`;
    return d.block ? html`<pre>${this.marked(d.value)}</pre>` : html`<span>${this.marked(d.value)}</span>`;
  }

  private controls() {
    const c = this.card;
    if (this.check === 'checking') return html`<p class="muted">Checking the server’s signature on this card…</p>`;
    if (this.check === 'key-unavailable') return html`<p class="error" role="alert">The server key could not be checked yet, so nothing is offered. Retrying…</p>`;
    if (this.check === 'bad-signature') return html`<p class="error" role="alert">This card’s signature does not verify against the pinned server key. Nothing is offered.</p>`;
    const id = `msg-${c.approval_id}`;
    const deny = html`<label for=${id}>Message to the agent (optional)</label>
      <input id=${id} .value=${this.message} @input=${(e: Event) => { this.message = (e.target as HTMLInputElement).value; }} maxlength="2000" autocomplete="off" />`;
    if (c.tier === 'T3' && this.screen === 'phone') {
      return html`<p class="t3"><strong>Desktop only.</strong> T3 actions are approved at the computer, with a typed phrase.</p>`;
    }
    const phraseWanted = confirmationPhrase(c);
    const phrase =
      c.tier === 'T3'
        ? html`<label for="phrase-${c.approval_id}">Type <code>${phraseWanted}</code> to approve</label>
            <input id="phrase-${c.approval_id}" class="phrase" .value=${this.phrase} @input=${(e: Event) => { this.phrase = (e.target as HTMLInputElement).value; }} autocomplete="off" spellcheck="false" />`
        : nothing;
    return html`${phrase}${deny}
      <div class="row actions">
        <button class="primary approve" ?disabled=${this.busy || (c.tier === 'T3' && this.phrase !== phraseWanted)} @click=${() => { this.answer('approve'); }}>Approve</button>
        <button class="quiet deny" ?disabled=${this.busy} @click=${() => { this.answer('deny'); }}>Deny</button>
      </div>`;
  }

  override render() {
    const c = this.card;
    const agent = c.agent ?? 'an agent';
    return html`<article class=${c.tier} aria-labelledby="h-${c.approval_id}">
      <div class="row">
        <span class="badge ${c.tier === 'T3' ? 't3' : 't2'}">${c.tier}</span>
        <h3 id="h-${c.approval_id}">${c.tool}</h3>
      </div>
      <p class="muted">${agent} asks: ${c.reason}</p>
      <oracle-countdown .at=${c.expires_at}></oracle-countdown>
      <dl>
        ${detailsOf(c.preview).map((d) => html`<dt>${d.label}</dt><dd>${this.value(d)}</dd>`)}
        ${c.project === null ? nothing : html`<dt>project</dt><dd>${c.project}</dd>`}
        ${c.session === null ? nothing : html`<dt>session</dt><dd>${c.session}</dd>`}
        <dt>provenance</dt>
        <dd>${c.provenance.length === 0 ? html`<span class="muted">nothing untrusted read in this session</span>` : html`<span class="taint">Tainted: the session read</span><ul>${c.provenance.map((p) => html`<li>${p}</li>`)}</ul>`}</dd>
      </dl>
      ${this.problem === '' ? nothing : html`<p class="error" role="alert">${this.problem}</p>`}
      ${this.controls()}
    </article>`;
  }
}
customElements.define('oracle-card', OracleCard);
