import { auditBench } from './audit.js';
import { authBench } from './auth.js';
import { coldStartBench } from './cold-start.js';
import { policyEnginesBench, type EnginesReport } from './decide.js';
import { haltBench } from './halt.js';
import { requestBench } from './requests.js';
import { roundTripBench } from './round-trip.js';
import { table, type Figure } from './stats.js';

/** `npm run bench [-- --json]`: every figure measured in this run, printed as a table or JSON. */
const engines = policyEnginesBench();
const figures: Figure[] = [...engines.figures, ...(await authBench()), ...(await requestBench()), ...(await auditBench()), ...(await roundTripBench()), ...(await haltBench()), ...(await coldStartBench())];
if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify({ node: process.version, figures, policy_engines: engines.report }, null, 2)}\n`);
else process.stdout.write(`${table(figures)}\n\n${enginesText(engines.report)}\n`);

function enginesText(r: EnginesReport): string {
  const a = r.agreement;
  const percent = (n: number) => `${(Math.round(n * 1000) / 10).toFixed(1)}%`;
  const lines = [
    `decide() vs Cedar ${r.cedar_version}: ${String(r.throughput_ratio)}x the throughput of the faster Cedar form (SPEC §14: at least 10x) — ${r.budget.ratio_at_least_10 ? 'met' : 'MISSED'}`,
    `decide() p99 under 50 µs excluding file-system resolution — ${r.budget.decide_p99_under_50_us ? 'met' : 'MISSED'}`,
    `Cedar policies: ${String(r.cedar_policies.per_rule)} (one per ORACLE rule) or ${String(r.cedar_policies.merged)} (merged); ${String(r.cedar_requests_per_action)} Cedar requests per action`,
    `cross-check: ${String(a.same)} of ${String(a.total)} actions (${percent(a.rate)}) get the same allow/deny from both; Cedar names ORACLE's rule for ${String(a.denials_with_same_rule)} of ${String(a.denials)} denials (the others are Cedar's default deny: no permit applies)`,
    ...(a.disagreements.length === 0 ? ['disagreements: none'] : a.disagreements.map((d) => `disagreement x${String(d.count)}: ${d.action}\n  ORACLE: ${d.oracle}\n  Cedar:  ${d.cedar}`)),
    `edge cases (untimed): ${String(r.edge_agreement.same)} of ${String(r.edge_agreement.total)} agree`,
    ...r.edge_agreement.disagreements.map((d) => `edge disagreement: ${d.action}\n  ORACLE: ${d.oracle}\n  Cedar:  ${d.cedar}`),
    `rules Cedar only approximates: ${r.inexact_rules.length === 0 ? 'none in this policy' : r.inexact_rules.join(', ')}`,
    'translation notes:',
    ...r.notes.map((n) => `- ${n}`),
  ];
  return lines.join('\n');
}
