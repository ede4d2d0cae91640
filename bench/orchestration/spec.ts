import type { ComponentSpec } from "../../runtime/spec/types.js";

/** `echo {n}` → `{n}`: the smallest useful step, so that what is measured is the orchestration. */
export const BENCH_TOOL: ComponentSpec = {
  kind: "tool",
  name: "bench-tool",
  description: "returns its input",
  version: "1.0.0",
  capabilities: [
    {
      name: "echo",
      key: "echo",
      description: "returns its input",
      type: "tool",
      internal: false,
      endpoint: "/api/capabilities/echo",
      input: { required: [{ name: "n", type: "number" }], optional: [] },
      output: { required: [{ name: "n", type: "number" }], optional: [] },
    },
  ],
};
