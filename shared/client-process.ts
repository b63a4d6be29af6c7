/**
 * The header an ORACLE client (`oracle hook`, `oracle mcp`) sends its own pid in, so the gate can
 * find the agent process above it and HALT can reach what that agent starts (issue 13).
 */
export const CLIENT_PID_HEADER = 'x-oracle-client-pid';
