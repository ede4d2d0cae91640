/** (a') The runtime with capability POSTs served as route handlers (a RouteContext), as every non-capability route is. */
import "./probe.js";
import { sendJson, type ComponentExtension } from "../../runtime/component/index.js";
import { serveComponentWith } from "../../runtime/component/serve.js";
import { announce, item, ITEM_ROUTE, quote, spec, type BenchCapabilities } from "./spec.js";

const items: ComponentExtension = {
  name: "items",
  routes: (add) => add("GET", ITEM_ROUTE, (ctx) => sendJson(ctx, 200, JSON.stringify(item(ctx.params["id"]!)))),
};
const running = await serveComponentWith<BenchCapabilities>(
  spec,
  { port: 0, log: () => undefined, handlers: { quote }, extensions: [items] },
  { fastPath: false },
);
announce(running.url);
