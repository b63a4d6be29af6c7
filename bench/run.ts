import { approvalsBench } from './approvals.js';
import { auditBench } from './audit.js';
import { claudeSessionBench } from './claude-session.js';
import { authBench } from './auth.js';
import { coldStartBench } from './cold-start.js';
import { enginesText, policyEnginesBench } from './decide.js';
import { haltBench } from './halt.js';
import { haltStreamsBench } from './halt-streams.js';
import { scaleBench } from './scale.js';
import { throughputBench } from './throughput.js';
import { requestBench } from './requests.js';
import { roundTripBench } from './round-trip.js';
import { mcpReadBench } from './mcp-read.js';
import { largeTreeBench } from './large-tree.js';
import { table, type Figure } from './stats.js';
import { measurePwa } from '../scripts/pwa-size.js';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';

/** `npm run bench [-- --json]`: every figure measured in this run, printed as a table or JSON. */
const engines = policyEnginesBench();
const figures: Figure[] = [...engines.figures, ...(await authBench()), ...(await requestBench()), ...(await auditBench()), ...(await roundTripBench()), ...(await haltBench()), ...(await haltStreamsBench()), ...scaleBench(), ...(await approvalsBench()), ...(await throughputBench()), ...(await coldStartBench()), ...(await mcpReadBench()), ...(await largeTreeBench())];
const claude = await claudeSessionBench();
figures.push(...claude.figures);
// What the phone downloads, from the build this run made (`npm run build` precedes it), against its budget.
const pwa = measurePwa(join(import.meta.dirname, '..', 'dist', 'pwa'));
const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;
const pwaText = `PWA shipped to the phone: ${kb(pwa.phone.gzip)} gzip (${kb(pwa.phone.bytes)} raw, ${String(pwa.phone.files.length)} files incl. the service worker) against a budget of ${kb(pwa.budget_gzip)}; the desktop screen's own chunk ${kb(pwa.desktop_only_gzip)} gzip`;
// What ORACLE costs a Claude Code session, as the ratio the budget is stated in (issue: at most 1.5×).
const session = (variant: string): number => figures.find((f) => f.name === `claude code 10-call session: ${variant}`)?.p50_us ?? Number.NaN;
const reference = session('reference, no hook');
const claudeText = ['http hook, gate running', 'command hook, gate running', 'command hook, no gate (headless)'].map((v) => `${v} ${(session(v) / reference).toFixed(2)}×`).join('; ');
const sessionText = `Claude Code 10-call session against no hook (p50, same run, interleaved): ${claudeText}; budget with the gate running 1.5× — ${session('http hook, gate running') / reference <= 1.5 ? 'met by the http hook' : 'NOT met by the http hook'}`;
const call = (name: string): number => figures.find((f) => f.name === name)?.p50_us ?? Number.NaN;
const node0 = call('hook call: reference, node -e 0');
// Issue 12's budgets per call: the http hook 0.1×, the command hook with a gate 1.3×, without one 2× (Bash 3×).
const within = (ratio: number, budget: number): string => `${ratio.toFixed(2)}×${ratio <= budget ? '' : ` (OVER ${String(budget)}×)`}`;
const callText = ['Bash', 'Read', 'Edit', 'Write']
  .map((k) => {
    const ratio = (variant: string) => call(`hook call (${k}): ${variant}`) / node0;
    return `${k}: http hook ${within(ratio('http hook, one HTTPS POST to the gate'), 0.1)}, command hook with a gate ${within(ratio('command hook, gate running'), 1.3)}, no gate ${within(ratio('command hook, no gate (headless)'), k === 'Bash' ? 3 : 2)}`;
  })
  .join('; ');
const seen = claude.connections;
const hookText = `One hook call against node -e 0 (p50, same run): ${callText}\nClaude Code's http hook in this run's ${String(seen.sessions)} sessions: ${String(seen.hook_calls)} calls over ${String(seen.tls_connections)} TLS connections (${String(seen.resumed)} resumed); the http figures above are on one kept-alive connection; on a new one (session resumed): ${['Bash', 'Read', 'Edit', 'Write'].map((k) => `${k} ${(call(`hook call (${k}): http hook, on a new TLS connection (session resumed)`) / node0).toFixed(2)}×`).join(', ')}`;
// Issue 14: a decision must not cost more than 2× as the policy grows from 100 to 10,000 entries.
const grows = (what: string): string => `${what} ${(call(`decision: 10000 ${what}`) / call(`decision: 100 ${what}`)).toFixed(2)}×`;
const scaleText = `A decision with 10,000 against 100 (p50, budget 2×): ${grows('deny_always globs')}, ${grows('scope roots')}; listing 1,000 pending approvals against 10: ${(call('approvals: list with 1000 pending (desktop, HTTPS)') / call('approvals: list with 10 pending (desktop, HTTPS)')).toFixed(2)}× (budget 2×)`;
// Issue 14: at 64 agents the gate reaches at least half the bare ceiling's throughput.
const rate = (name: string): number => figures.find((f) => f.name === name)?.per_second ?? Number.NaN;
const ceilingShare = [1, 16, 64].map((n) => `${String(n)}: ${(rate(`throughput, ${String(n)} agents: POST /api/v1/actions T0 read through the gate`) / rate(`throughput, ${String(n)} agents: reference, bare Hono constant JSON, same TLS`)).toFixed(2)}×`);
const cpuAt64 = (which: string): string => {
  const cpu = figures.find((f) => f.name === `throughput, 64 agents: ${which}`)?.cpu;
  return cpu === undefined ? 'not measured' : `server ${String(cpu.server_us)} µs CPU per request (${cpu.server_cores.toFixed(2)} cores), load generator ${String(cpu.client_us)} µs (${cpu.client_cores.toFixed(2)} cores)`;
};
// Derived from the same run: the CPU a gate action costs both processes (the gate, and the load
// generator sharing the machine) caps the gate's rate however its work were spread over the cores;
// what each gate action may cost for half the ceiling follows from the same figures.
const capAt64 = (): string => {
  const gate = figures.find((f) => f.name === 'throughput, 64 agents: POST /api/v1/actions T0 read through the gate')?.cpu;
  const bare = rate('throughput, 64 agents: reference, bare Hono constant JSON, same TLS');
  if (gate === undefined || !(bare > 0)) return 'not measured';
  const cores = availableParallelism();
  const cap = (cores * 1e6) / (gate.server_us + gate.client_us);
  const allowed = (cores * 1e6) / (bare / 2) - gate.client_us;
  return `with all ${String(cores)} cores busy, ${String(gate.server_us + gate.client_us)} µs of CPU per gate action on both sides allow at most ${String(Math.round(cap))} actions/s (${(cap / bare).toFixed(2)}× the ceiling); half the ceiling needs the gate at ${String(Math.round(allowed))} µs per action or less`;
};
const throughputText = `Gate throughput as a share of the bare Hono ceiling, by concurrent agents (budget at 64: 0.5×): ${ceilingShare.join(', ')}; at 64, the gate: ${cpuAt64('POST /api/v1/actions T0 read through the gate')}; the ceiling: ${cpuAt64('reference, bare Hono constant JSON, same TLS')}; the most this machine allows at the gate's cost: ${capAt64()}`;
// Issue 13: an MCP read through the gate against the reference filesystem server, same client, same run.
const mcpReference = call('mcp read 4 KiB: reference, @modelcontextprotocol/server-filesystem read_text_file');
const mcpRatio = call('mcp read 4 KiB: oracle mcp fs_read, client of the running gate') / mcpReference;
const mcpDurable = figures.find((f) => f.name.startsWith("mcp read 4 KiB: one O_DSYNC append of a read's audit records"))?.p50_us ?? Number.NaN;
// What the gate must add to any read before its result may leave: its records made durable.
const mcpFloor = (mcpReference + mcpDurable) / mcpReference;
const mcpText = `An MCP read through the gate against @modelcontextprotocol/server-filesystem (p50, same client, interleaved; budget 1.5×): ${within(mcpRatio, 1.5)}; the same read inside the gate ${(call('mcp read 4 KiB: the same read submitted inside the gate process') / 1000).toFixed(2)} ms; the reference plus one durable append of a read's records alone: ${mcpFloor.toFixed(2)}×`;
// Session 34: what a large project adds to a job, against the same job in a small one.
const tree = (which: string): number => figures.find((f) => f.name.startsWith('exec.run sh -c : in a') && f.name.endsWith(which))?.p50_us ?? Number.NaN;
const treeReference = call('exec.run sh -c :: reference, the same job in a 10-file project');
const ms = (us: number): string => `${(us / 1000).toFixed(1)} ms`;
const treeText = `exec.run in a 60,000-file project against the same job in a 10-file project (p50, same run): first job ${(tree('(every entry judged)') / treeReference).toFixed(2)}×, later jobs ${(tree('(listings kept)') / treeReference).toFixed(2)}×; the gate's event loop held at most ${ms(tree('first job, the longest the event loop was held'))} in the first job, ${ms(tree('later jobs, the longest the event loop was held'))} in later ones (${ms(call('exec.run sh -c :: reference, the longest the event loop was held'))} in the small project)`;
if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify({ node: process.version, figures, policy_engines: engines.report, pwa, claude_code_http_connections: claude.connections }, null, 2)}\n`);
else process.stdout.write(`${table(figures)}\n\n${pwaText}\n\n${sessionText}\n${hookText}\n${scaleText}\n${throughputText}\n${mcpText}\n${treeText}\n\n${enginesText(engines.report)}\n`);
