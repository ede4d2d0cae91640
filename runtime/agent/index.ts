/**
 * The composition root of a served agent and the Feature seam every agent feature plugs into.
 */
export type { AgentFeature, FeatureBuild, FeatureServices, PendingKey } from "../feature/index.js";
export { serveManifest } from "./serve-manifest.js";
export { AGENT_FEATURES, AGENT_ROUTE_PREFIXES, agentOpenApi, type AgentFeatureOptions } from "./features.js";
export { serveAgent, type AgentServeOptions } from "./serve.js";
export {
  createUsesClients,
  handleClientOptions,
  type HandleClientOptions,
  type UsableHandle,
  type UsesClientOptions,
  type UsesClients,
  type UsesHandles,
} from "./clients.js";
