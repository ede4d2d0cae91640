/** (a) What generated code does: defineComponent from codegen/v1, then serve with handlers. */
import "./probe.js";
import { defineComponent } from "agent-manifold/runtime/codegen/v1";
import { announce, quote, spec, type BenchCapabilities } from "./spec.js";

const BenchTool = defineComponent<BenchCapabilities>(spec);
const running = await BenchTool.serve({ port: 0, log: () => undefined, handlers: { quote } });
announce(running.url);
