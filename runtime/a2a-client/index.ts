/**
 * The A2A client (issue 30, item 2): remote agents as components. A `kind: a2a` component's typed
 * client and an orchestrator's targets call the remote agent's skills over A2A 1.0 (JSON-RPC) and
 * follow each remote task to its end; cancellation propagates. Nothing here imports the A2A server
 * (runtime/a2a) or loads the SDK until a call is made.
 */
export { acquireA2aAgent, heldA2aAgents, type A2aAgent, type A2aAgentLease, type A2aAgentOptions } from "./agent-pool.js";
export { closeA2aClient, createA2aClient, type A2aClientOptions, type A2aMethod } from "./client.js";
export { createA2aSkillCall, MAX_RESULT_TEXT as MAX_A2A_RESULT_TEXT, type A2aSkillCall, type A2aSkillCallOptions } from "./skill-call.js";
export { createA2aTargets, type A2aTarget, type A2aTargets, type A2aTargetsOptions } from "./targets.js";
