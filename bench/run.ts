import { auditBench } from './audit.js';
import { authBench } from './auth.js';
import { coldStartBench } from './cold-start.js';
import { enginesText, policyEnginesBench } from './decide.js';
import { haltBench } from './halt.js';
import { requestBench } from './requests.js';
import { roundTripBench } from './round-trip.js';
import { table, type Figure } from './stats.js';

/** `npm run bench [-- --json]`: every figure measured in this run, printed as a table or JSON. */
const engines = policyEnginesBench();
const figures: Figure[] = [...engines.figures, ...(await authBench()), ...(await requestBench()), ...(await auditBench()), ...(await roundTripBench()), ...(await haltBench()), ...(await coldStartBench())];
if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify({ node: process.version, figures, policy_engines: engines.report }, null, 2)}\n`);
else process.stdout.write(`${table(figures)}\n\n${enginesText(engines.report)}\n`);
