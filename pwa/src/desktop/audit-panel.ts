import { when } from '../lib/cards.js';
import { LitElement, html, nothing } from 'lit';
import { ApiError, request } from '../lib/api.js';
import { base } from '../ui/styles.js';

interface Verify {
  readonly ok: boolean;
  readonly records: number;
  readonly files: number;
  readonly checkpoint: { readonly seq: number; readonly ts: string } | null;
  readonly fault: { readonly code: string; readonly file: string | null; readonly line: number | null; readonly message: string } | null;
  /** Ranges a start found past the signed checkpoint and signed then (absent from older gates). */
  readonly signed_late?: readonly { readonly from_seq: number; readonly to_seq: number; readonly ts: string }[];
}

interface AuditReply {
  readonly verify: Verify | null;
  readonly records: readonly Record<string, unknown>[];
}

const s = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

/** The audit log (SPEC §7, §10): the whole chain verified on demand, with the result as checked, and the newest records. */
export class OracleAuditPanel extends LitElement {
  static override properties = { reply: { state: true }, problem: { state: true }, loading: { state: true }, checkedAt: { state: true } };
  static override styles = [base];
  declare reply: AuditReply | undefined;
  declare problem: string;
  declare loading: boolean;
  /** When the chain was last verified: the verdict is as of then, not now. */
  declare checkedAt: string;

  constructor() {
    super();
    this.reply = undefined;
    this.problem = '';
    this.loading = false;
    this.checkedAt = '';
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  /** The newest records, and with `verify` the whole chain checked again (it reads the whole log). */
  async load(verify = true): Promise<void> {
    this.loading = true;
    try {
      const reply = (await request<AuditReply>(`/api/v1/desk/audit?limit=20&verify=${verify ? '1' : '0'}`)).body;
      this.reply = { verify: reply.verify ?? this.reply?.verify ?? null, records: reply.records };
      if (reply.verify !== null) this.checkedAt = new Date().toLocaleTimeString();
      this.problem = '';
    } catch (e) {
      this.problem = e instanceof ApiError ? e.message : 'could not read the audit log';
    } finally {
      this.loading = false;
    }
  }

  private verdict(v: Verify) {
    const at = html` <span class="muted">(verified at ${this.checkedAt})</span>`;
    const late = (v.signed_late ?? []).map((l) => html`<p class="error audit-late">Records #${String(l.from_seq)}–#${String(l.to_seq)} followed the signed checkpoint when the gate started (${when(l.ts)}) and were signed only then: a crash, or records added to the log file. Nothing vouches for them.</p>`);
    if (v.ok) return html`<p class="ok audit-verify">Chain intact: ${v.records} records in ${v.files} file(s)${v.checkpoint === null ? ', no signed checkpoint yet' : `, signed checkpoint at #${String(v.checkpoint.seq)}`}.${at}</p>${late}`;
    return html`<p class="error audit-verify" role="alert">Chain BROKEN after ${v.records} good records: ${v.fault === null ? 'unknown fault' : `${v.fault.code}: ${v.fault.message}${v.fault.file === null ? '' : ` (${v.fault.file} line ${s(v.fault.line)})`}`}.${at}</p>${late}`;
  }

  override render() {
    const r = this.reply;
    return html`<section class="panel" aria-labelledby="audit-h">
      <h2 id="audit-h">Audit log</h2>
      <button class="quiet" ?disabled=${this.loading} @click=${() => void this.load()}>Verify again</button>
      ${this.problem === '' ? nothing : html`<p class="error">${this.problem}</p>`}
      ${r === undefined
        ? nothing
        : html`${r.verify === null ? nothing : this.verdict(r.verify)}
            <ul class="plain audit-records">
              ${r.records.map((rec) => html`<li><strong>${s(rec['kind'])}</strong> ${s(rec['tool'])} ${s(rec['decision'] ?? rec['outcome'])} <span class="muted">#${s(rec['seq'])} · ${when(typeof rec['ts'] === 'string' ? rec['ts'] : null)} · ${s(rec['actor'])}</span>${rec['args_preview'] === undefined ? nothing : html`<pre>${s(rec['args_preview'])}</pre>`}</li>`)}
            </ul>`}
    </section>`;
  }
}
customElements.define('oracle-audit-panel', OracleAuditPanel);
