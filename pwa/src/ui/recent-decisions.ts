import { LitElement, html, nothing } from 'lit';
import type { ApprovalCard } from '../../../shared/approval-card.js';
import type { DeviceView } from '../../../shared/device-view.js';
import { deciderName, when } from '../lib/cards.js';
import { base } from './styles.js';

/** Recent decisions (SPEC §10), on both screens: what was decided, by whom (device name), when, and a denial's message. */
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
            html`<li><strong>${r.state}</strong> ${r.tool} <span class="muted">${r.tier} · by ${deciderName(r.device, this.devices)} · ${when(r.decided_at ?? r.expires_at)}</span>${r.message === null ? nothing : html`<br /><span class="muted">“${r.message}”</span>`}</li>`,
        )}
      </ul>
    </section>`;
  }
}
customElements.define('oracle-recent', OracleRecent);
