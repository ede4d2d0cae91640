/**
 * A feature's request-driven part as a thin shell: its routes join the agent's table at start (so 404,
 * 405 with Allow, CORS and the envelope are as if it were built), and the part itself (its modules, its
 * store) loads on the first request to one of them. A request arriving while it loads waits for it; a
 * load that fails answers that request with the error and the next request tries again. Loaded after
 * the component started, the part is started before it serves; it is drained and stopped with the agent.
 * Background work that must run from start does not belong here: its feature builds it at start.
 */
import type { ComponentExtension, ExtensionContext, ExtensionStart, RouteHandler } from "../component/index.js";
import type { OpenApiAddition } from "../spec/index.js";
import { loadOnce } from "../util/index.js";

/** One route the loaded part adds: method and path, as it passes them to `add`. */
export type LazyRoute = readonly [method: string, path: string];

export interface LazyExtensionOptions {
  readonly name: string;
  /** Every route the loaded part adds, in its order: a part that adds others fails its first request, naming them. */
  readonly routes: readonly LazyRoute[];
  readonly openapi?: readonly OpenApiAddition[];
  /** Builds the part: called once, on first use (a failed load is called again by the next request). */
  load(): Promise<ComponentExtension>;
}

export interface LazyExtension {
  readonly extension: ComponentExtension;
  /** The loaded part, started when the component is: for hooks that need it outside a route (a resumed run). */
  loaded(): Promise<ComponentExtension>;
}

interface Loaded {
  readonly part: ComponentExtension;
  readonly table: ReadonlyMap<string, RouteHandler>;
  started: boolean;
}

const keyOf = ([method, path]: LazyRoute): string => `${method} ${path}`;

/** The routes `part` adds, by `METHOD /path`; an error naming the difference when they are not `declared`. */
function routeTable(part: ComponentExtension, declared: readonly LazyRoute[], context: ExtensionContext): Map<string, RouteHandler> {
  const table = new Map<string, RouteHandler>();
  part.routes?.((method, path, handler) => void table.set(keyOf([method, path]), handler), {
    ...context,
    post: (path) => {
      throw new Error(`${part.name}: a lazily loaded part cannot add the fast POST route ${path}`);
    },
  });
  const [added, expected] = [[...table.keys()].join(", "), declared.map(keyOf).join(", ")];
  if (added !== expected) throw new Error(`${part.name}: the loaded part adds ${added || "no route"}, its shell declared ${expected || "none"}`);
  return table;
}

export function createLazyExtension(options: LazyExtensionOptions): LazyExtension {
  const { name, routes } = options;
  let context: ExtensionContext | undefined;
  let running: ExtensionStart | undefined;
  let current: Loaded | undefined;

  // Started once, with what the component's start gave, whichever of load and start comes last.
  const startPart = async (loaded: Loaded): Promise<void> => {
    if (loaded.started || running === undefined) return;
    loaded.started = true;
    await loaded.part.start?.(running);
  };
  // A failed load is not kept: the next request loads again.
  const loading = loadOnce(async () => {
    const part = await options.load();
    if (context === undefined) throw new Error(`${name}: loaded before the component added its routes`);
    const loaded: Loaded = { part, table: routeTable(part, routes, context), started: false };
    current = loaded;
    await startPart(loaded);
    return loaded;
  });
  const load = loading.get;
  const extension: ComponentExtension = {
    name,
    ...(options.openapi === undefined ? {} : { openapi: options.openapi }),
    routes(add, given) {
      context = given;
      for (const route of routes) {
        const key = keyOf(route);
        // Once loaded, the part's route is called as it is: an async wrapper's promise, resolved with the
        // route's own, would be held as long as that is (a held chat stream's heap, bench:chat).
        add(route[0], route[1], (ctx) => {
          const loaded = loading.current();
          return loaded !== undefined ? loaded.table.get(key)!(ctx) : load().then((part) => part.table.get(key)!(ctx));
        });
      }
    },
    async start(given) {
      running = given;
      const pending = loading.pending();
      if (pending !== undefined) await startPart(await pending);
    },
    draining() {
      current?.part.draining?.();
    },
    async stop(deadlineMs) {
      // A part still loading (its request is draining) is stopped once it is there.
      const loaded = current ?? (await loading.pending()?.catch(() => undefined));
      await loaded?.part.stop?.(deadlineMs);
    },
  };
  return { extension, loaded: async () => (await load()).part };
}
