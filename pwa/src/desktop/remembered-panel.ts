import { LitElement, html, nothing } from 'lit';
import type { RememberedView } from '../../../shared/remembered-view.js';
import { ApiError, json, request } from '../lib/api.js';
import { when } from '../lib/cards.js';
import { sentenceOf } from '../lib/sentence.js';
import { base } from '../ui/styles.js';

/**
 * Remembered answers (issue 16): each rule a person made with Approve, what it allows (the exact
 * action it was made from), for which session or project, who made it, when it ends, how many
 * cards it answered; Forget revokes it at once. The total is the prompts remembering saved.
 */
export class OracleRememberedPanel extends LitElement {
  // `names` is a property: the device list often arrives after the rules, and the rows must then show names.
  static override properties = { rules: { state: true }, saved: { state: true }, problem: { state: true }, names: { attribute: false } };
  static override styles = [base];
  declare rules: readonly RememberedView[];
  declare saved: number;
  declare problem: string;
  /** Device ids to names, from the screen around this panel. */
  declare names: (id: string) => string;

  constructor() {
    super();
    this.rules = [];
    this.names = (id) => id;
    this.saved = 0;
    this.problem = '';
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  async load(): Promise<void> {
    try {
      const { body } = await request<{ remembered: RememberedView[]; prompts_saved: number }>('/api/v1/desk/remembered');
      this.rules = body.remembered;
      this.saved = body.prompts_saved;
      this.problem = '';
    } catch (e) {
      this.problem = e instanceof ApiError ? `${e.code}: ${e.message}` : 'could not read the remembered answers';
    }
  }

  private async forget(id: string): Promise<void> {
    try {
      await request(`/api/v1/desk/remembered/${encodeURIComponent(id)}/forget`, json('POST', {}));
    } catch (e) {
      this.problem = e instanceof ApiError ? `${e.code}: ${e.message}` : 'the rule was not forgotten';
    }
    await this.load();
  }

  override render() {
    return html`<section class="panel" aria-labelledby="remembered-h">
      <h2 id="remembered-h">Remembered answers</h2>
      <p class="muted saved">Prompts saved by remembering: <strong>${this.saved}</strong></p>
      ${this.problem === '' ? nothing : html`<p class="error" role="alert">${this.problem}</p>`}
      ${this.rules.length === 0 ? html`<p class="muted">None. Approve a card with “allow exactly this again” to stop being asked the same thing.</p>` : nothing}
      <ul class="plain remembered">
        ${this.rules.map((r) => {
          const s = sentenceOf({ agent: r.agent, tool: r.tool, preview: r.preview, project: r.project });
          return html`<li>
            <strong>${s.verb} ${s.object}</strong>
            <span class="muted">· ${r.agent ?? 'any agent'} · ${r.session === null ? `any session in ${r.project}` : `session ${r.session}`} · by ${this.names(r.created_by)} ${when(r.created_at)} · ends ${when(r.expires_at)} · used ${r.uses}×</span>
            <button class="quiet forget" @click=${() => void this.forget(r.id)}>Forget</button>
          </li>`;
        })}
      </ul>
    </section>`;
  }
}
customElements.define('oracle-remembered-panel', OracleRememberedPanel);
