import { LitElement, html, nothing } from 'lit';
import type { ApprovalCard } from '../../../shared/approval-card.js';
import type { DeviceView } from '../../../shared/device-view.js';
import { deciderName, when } from '../lib/cards.js';
import { sentenceOf, stateWords } from '../lib/sentence.js';
import { base } from './styles.js';

/** Recent decisions (SPEC §10), on both screens: what was asked, what came of it in words (by device name), local time, a denial's message. */
export class OracleRecent extends LitElement {
  static override properties = { decisions: { attribute: false }, devices: { attribute: false } };
  static override styles = [base];
  declare decisions: readonly ApprovalCard[];
  declare devices: readonly DeviceView[];

  constructor() {
    super();
    this.decisions = [];
    this.devices = [];
  }

  override render() {
    return html`<section class="panel" aria-labelledby="recent-h">
      <h2 id="recent-h">Recent decisions</h2>
      ${this.decisions.length === 0 ? html`<p class="muted">None yet.</p>` : nothing}
      <ul class="plain">
        ${this.decisions.map(
          (r) =>
            html`<li>${sentenceVerb(r)} <span class="state"><strong>${stateWords(r, deciderName(r.device, this.devices))}</strong></span> <span class="muted">${r.tier} · ${when(r.decided_at ?? r.expires_at)}</span>${r.message === null || r.message === 'HALT' ? nothing : html`<br /><span class="muted">“${r.message}”</span>`}</li>`,
        )}
      </ul>
    </section>`;
  }
}
/** "edit package.json", "run npm test": what was asked, short. */
function sentenceVerb(card: ApprovalCard): string {
  const s = sentenceOf(card);
  return `${s.verb} ${s.object}`;
}

customElements.define('oracle-recent', OracleRecent);
