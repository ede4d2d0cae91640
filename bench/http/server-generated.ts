/** (a) What generated code does: defineComponent from codegen/v1, then serve with handlers and an extension's GET route. */
import "./probe.js";
import { sendJson, type ComponentExtension } from "agent-manifold/runtime/component";
import { defineComponent } from "agent-manifold/runtime/codegen/v1";
import { announce, item, ITEM_ROUTE, quote, spec, type BenchCapabilities } from "./spec.js";

const items: ComponentExtension = {
  name: "items",
  routes: (add) => add("GET", ITEM_ROUTE, (ctx) => sendJson(ctx, 200, JSON.stringify(item(ctx.params["id"]!)))),
};
const BenchTool = defineComponent<BenchCapabilities>(spec);
const running = await BenchTool.serve({ port: 0, log: () => undefined, handlers: { quote }, extensions: [items] });
announce(running.url);
