/** The execution contract lives in the core (the lifecycle drives it); the toolhost implements it. */
export { failed, prepareAction, EXEC_ERROR_CODES, type ExecErrorCode, type Executed, type ExecutionResult, type PreparedAction } from '../core/lifecycle/execution.js';
/** Who a job's processes are on the host (adapters/agent/job-identity.ts), for the battery's report. */
export type { JobIdentity } from '../adapters/agent/job-identity.js';
