export * from "./errors/index.js";
export * from "./spec/index.js";
export * from "./component/index.js";
export * from "./discovery/index.js";
export * from "./outbound/index.js";
export * from "./store/index.js";
export * from "./telemetry/index.js";
// Serving a manifest reads the agent feature list, so it lives with the composition root; the root
// barrel takes it from its own file (not the agent's index) to keep `agent-manifold/runtime` light.
export { serveManifest } from "./agent/serve-manifest.js";
