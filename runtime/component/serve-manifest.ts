import { serveComponent } from "./serve.js";
import type { CapabilityTypes, ComponentOptions, RunningComponent } from "./types.js";

/**
 * Serves a tool or agent manifest straight from its YAML, without generated code: same loader, same
 * checks, same app as `manifold gen` + `serve()`. Handlers are keyed by the camelCase capability
 * names, untyped unless the caller supplies the types. A manifest with errors rejects with an Error
 * whose message is the formatted diagnostics. The loader is imported on first use only, so servers
 * built from generated code never load it.
 */
export async function serveManifest<C extends CapabilityTypes = CapabilityTypes>(path: string, options: ComponentOptions<C>): Promise<RunningComponent> {
  const { loadComponentFile } = await import("../manifest/index.js");
  return serveComponent<C>(await loadComponentFile(path), options);
}
