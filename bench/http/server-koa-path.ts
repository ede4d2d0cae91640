/** (a') The runtime with its node:http fast path switched off: capability POSTs go through Koa. */
import "./probe.js";
import { serveComponentWith } from "../../runtime/component/serve.js";
import { announce, quote, spec, type BenchCapabilities } from "./spec.js";

const running = await serveComponentWith<BenchCapabilities>(spec, { port: 0, log: () => undefined, handlers: { quote } }, { fastPath: false });
announce(running.url);
