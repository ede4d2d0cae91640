import { serveComponent, type CapabilityTypes, type ComponentOptions, type RunningComponent } from "../component/index.js";

/**
 * Serves a tool or agent manifest straight from its YAML, without generated code: same loader, same
 * checks, same app as `manifold gen` + `serve()`. Handlers are keyed by the camelCase capability
 * names, untyped unless the caller supplies the types. A manifest with errors rejects with an Error
 * whose message is the formatted diagnostics. The loader and the feature list are imported on first
 * use only, so servers built from generated code never load them.
 */
export async function serveManifest<C extends CapabilityTypes = CapabilityTypes>(path: string, options: ComponentOptions<C>): Promise<RunningComponent> {
  const [{ loadComponentFile }, { AGENT_FEATURES }] = await Promise.all([import("../manifest/index.js"), import("./features.js")]);
  return serveComponent<C>(await loadComponentFile(path, { features: AGENT_FEATURES }), options);
}
