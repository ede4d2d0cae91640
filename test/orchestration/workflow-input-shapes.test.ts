/**
 * Workflow inputs with a field's shape, over HTTP: a body that does not fit the inputs' `items`,
 * nested `fields` or `enum` is 400 INVALID_INPUT with a pointer per problem before any step runs, on
 * a workflow checked by gen's loader and on the same workflow served from a YAML file. The step's
 * tool is a real served component; it must never see the bad call.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent, type RunningComponent } from "../../runtime/component/index.js";
import { loadWorkflowText } from "../../runtime/manifest/index.js";
import type { ComponentSpec } from "../../runtime/spec/types.js";
import { agentSpec, capability, serveAgent } from "./support.js";

const TOOL: ComponentSpec = {
  kind: "tool",
  name: "batch",
  description: "sums numbers",
  version: "1.0.0",
  capabilities: [
    capability(
      "sum_all",
      {
        required: [{ name: "values", type: "array", items: { type: "number" } }],
        optional: [
          { name: "mode", type: "string", enum: ["fast", "exact"] },
          { name: "target", type: "object", fields: { required: [{ name: "currency", type: "string" }], optional: [] } },
        ],
      },
      { required: [{ name: "total", type: "number" }], optional: [] },
    ),
  ],
};

const WORKFLOW = `kind: workflow
name: totals
version: "1.0"
inputs:
  values: { type: array, items: { type: number }, required: true }
  mode: { type: string, enum: [fast, exact] }
  target: { type: object, fields: { required: [{ name: currency, type: string }] } }
steps:
  - name: sum
    tool: batch
    action: sum_all
    inputs: { values: "\${inputs.values}", mode: "\${inputs.mode}", target: "\${inputs.target}" }
outputs:
  total: "\${steps.sum.output.total}"
`;

interface Context {
  tool: RunningComponent;
  calls: unknown[];
  agent: Awaited<ReturnType<typeof serveAgent>>;
  dir: string;
  diagnostics: readonly unknown[];
  /** What `before` threw: uvu drops an error thrown by a hook and counts no test as failed, so a test asserts it. */
  setupError: unknown;
}
const test = suite<Context>("workflow input shapes", {} as Context);

async function setUp(context: Context): Promise<void> {
  context.calls = [];
  context.tool = await serveComponent(TOOL, {
    port: 0,
    handlers: {
      // The component validated the input against the capability's schema before this runs.
      sumAll: (input) => {
        context.calls.push(input);
        return { total: (input as { values: number[] }).values.reduce((a, b) => a + b, 0) };
      },
    },
    registry: false,
    handleSignals: false,
    log: () => undefined,
  });
  const loaded = loadWorkflowText("totals.yaml", WORKFLOW, { component: (name) => (name === "batch" ? TOOL : undefined) });
  context.diagnostics = loaded.diagnostics;
  // The same workflow again, served from a file by the YAML workflow engine.
  context.dir = mkdtempSync(join(tmpdir(), "manifold-shapes-"));
  const file = join(context.dir, "totals-yaml.yaml");
  writeFileSync(file, WORKFLOW.replace("name: totals", "name: totals-yaml"));
  context.agent = await serveAgent(agentSpec("shapes-agent", { workflows: loaded.spec === undefined ? [] : [loaded.spec] }), {
    components: [TOOL],
    baseUrls: { batch: context.tool.url },
    workflowFiles: [file],
  });
}

test.before(async (context) => {
  context.setupError = await setUp(context).catch((error: unknown) => error);
});
test.after(async ({ tool, agent, dir }) => {
  // Optional chaining: `before` may have failed half-way.
  await agent?.running.close();
  await tool?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});
test.before.each(({ calls }) => {
  calls.length = 0;
});

test("the workflow, inputs with items, fields and enum, loads without diagnostics and is served", ({ diagnostics, setupError }) => {
  assert.equal(diagnostics, []);
  assert.is(setupError, undefined);
});

const BAD: readonly [string, unknown, readonly string[]][] = [
  ["an element of the wrong type", { values: [1, "2", 3] }, ["/values/1"]],
  ["a value outside the enum", { values: [1], mode: "slow" }, ["/mode"]],
  ["an object missing a required nested field", { values: [1], target: {} }, ["/target/currency"]],
  ["a nested field of the wrong type", { values: [1], target: { currency: 978 } }, ["/target/currency"]],
  ["all at once", { values: [true], mode: 1, target: { code: "EUR" } }, ["/mode", "/target/code", "/target/currency", "/values/0"]],
];

for (const path of ["/orchestrate/totals", "/orchestrate/totals-yaml"]) {
  test(`POST ${path}: a body that fails the inputs' shapes is 400 INVALID_INPUT with pointers; the tool is never called`, async ({ agent, calls }) => {
    for (const [what, body, pointers] of BAD) {
      const response = await agent.post(path, body);
      assert.is(response.status, 400, `${what}: ${JSON.stringify(response.body)}`);
      const error = response.body["error"] as { code: string; details: { pointer: string }[] };
      assert.is(error.code, "INVALID_INPUT", what);
      assert.equal([...new Set(error.details.map((d) => d.pointer))].sort(), pointers, what);
    }
    assert.equal(calls, []);
  });

  test(`POST ${path}: a body that fits reaches the tool as given`, async ({ agent, calls }) => {
    const body = { values: [1, 2.5], mode: "exact", target: { currency: "EUR" } };
    const response = await agent.post(path, body);
    assert.is(response.status, 200, JSON.stringify(response.body));
    assert.equal(response.body["outputs"], { total: 3.5 });
    assert.equal(calls, [body]);
  });
}

test.run();
