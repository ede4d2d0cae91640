/**
 * The per-request scope (AsyncLocalStorage) every outbound call reads: request ids, the token and
 * headers to propagate, the conversation id; plus the rules for the ids and headers it carries and
 * the registry of secret values the logger redacts; and the caller's proven identity (identity.ts,
 * `callerIdentity()`) with the agent tokens that prove an agent's name (agent-token.ts, on `jose`).
 * Of the runtime it depends on nothing but `errors/`, so telemetry, outbound calls and the component
 * can all build on it without a cycle.
 */
export {
  callerIdentity,
  currentScope,
  OutboundContext,
  runInScope,
  withIdentity,
  withRequestContext,
  type RequestContextInit,
  type RequestScope,
} from "./scope.js";
export { requestIdOf, validConversationId, validRequestId } from "./ids.js";
export { HEADER, RESERVED_HEADERS, bearerToken, checkHeader, checkToken, isSkippedHeader } from "./headers.js";
export { forwardedFrom, type Forwarded, type ForwardOptions } from "./forward.js";
export { REDACTED, redactSecrets, redactValues, registerSecret } from "./secrets.js";
export { APPROVAL_GATE_HEADER, ApprovalGate, approvalGateFrom, parametersHash, type ApprovalGrant, type ApprovedCall } from "./approval.js";
export { ANONYMOUS, ownerKey, requestIdentity, sameIdentity, setRequestIdentity, type Identity } from "./identity.js";
export { AGENT_TOKEN_HEADER, agentIdentityKey, mintAgentToken, verifyAgentToken } from "./agent-token.js";
