/**
 * The endpoint as the component creates it: synchronously, with its tools checked at once, while the
 * SDK (about 160 modules with zod, some 200 ms of loading) is imported with the first request to `/mcp`.
 * Imported in the background at creation, it competed with the rest of start-up for the CPU of every
 * component with `mcp: true` (most never see an MCP client); the first initialize waits for it instead.
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
  let loading: Promise<McpEndpoint<S>> | undefined;
  let loaded: McpEndpoint<S> | undefined;
  // A failure to load is seen by the request that waited (a 500 in the envelope, logged), and by every later one.
  const load = (): Promise<McpEndpoint<S>> => (loading ??= import("./endpoint.js").then(({ createSdkEndpoint }) => (loaded = createSdkEndpoint(options))));
  return {
    handle: async (req, res, body, scope) => (loaded ?? (await load())).handle(req, res, body, scope),
    draining: () => loaded?.draining(),
    // Never loaded: no session to close. Loading: closed once it has loaded.
    close: async () => (loaded ?? (await loading?.catch(() => undefined)))?.close(),
    get sessions() {
      return loaded?.sessions ?? 0;
    },
  };
}
