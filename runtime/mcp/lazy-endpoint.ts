/**
 * The endpoint as the component creates it: synchronously, with its tools checked at once, while the
 * SDK (about 200 ms of module loading) is imported in the background. A process that does not serve
 * MCP never loads it; one that does has it loaded long before its first client has initialised.
 */
import type { McpEndpoint, McpEndpointOptions } from "./types.js";

/** Two tools of one name would make one of them unreachable: refused when the component starts. */
function checkToolNames(component: string, names: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw new TypeError(`${component}: two MCP tools are named ${name} (a capability and an extension's tool, or two extensions' tools)`);
    seen.add(name);
  }
}

export function createMcpEndpoint<S>(options: McpEndpointOptions<S>): McpEndpoint<S> {
  checkToolNames(
    options.name,
    options.tools.map((tool) => tool.name),
  );
  const loading = import("./endpoint.js").then(({ createSdkEndpoint }) => createSdkEndpoint(options));
  // Seen by the first request (a 500 in the envelope, logged); never an unhandled rejection meanwhile.
  loading.catch(() => {});
  let loaded: McpEndpoint<S> | undefined;
  void loading.then((endpoint) => {
    loaded = endpoint;
  });
  return {
    handle: async (req, res, body, scope) => (loaded ?? (await loading)).handle(req, res, body, scope),
    draining: () => loaded?.draining(),
    close: async () => (loaded ?? (await loading.catch(() => undefined)))?.close(),
    get sessions() {
      return loaded?.sessions ?? 0;
    },
  };
}
