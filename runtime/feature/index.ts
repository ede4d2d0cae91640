/**
 * The agent feature seam: what a feature folder's descriptor implements and what `serveAgent` gives
 * it. It sits above the manifest layer and the component, below every feature and the agent.
 */
export type { AgentFeature, FeatureBuild, FeatureServices, ManifestFeature, PendingKey } from "./feature.js";
export { createFeatureEvents, type FeatureEventMap, type FeatureEventName, type FeatureEvents } from "./events.js";
export { createLazyExtension, type LazyExtension, type LazyExtensionOptions, type LazyRoute } from "./lazy-extension.js";
