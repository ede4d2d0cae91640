/**
 * An agent that requires a bearer token requires it on its framework routes too: orchestration and
 * the task API act for the caller exactly as capability calls do.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { TravelAgent } from "../../generated/travel-agent/index.js";
import { createMemoryRegistry } from "../../runtime/discovery/index.js";
import { createMemoryTaskBackend } from "../../runtime/tasks/index.js";

const agent = await TravelAgent.serve({
  port: 0,
  registry: false,
  handleSignals: false,
  log: () => {},
  auth: { required: true, verify: (token) => token === "letmein" },
  enableOpenApi: true,
  handlers: {
    tripBrief: () => {
      throw new Error("not called");
    },
  },
  tasks: { packingList: (input) => ({ destination: input.destination, items: [] }) },
  orchestration: { registry: createMemoryRegistry() },
  taskOptions: { backend: createMemoryTaskBackend() },
});

test.after(() => agent.close());

/**
 * Each call with the answer it gets once through the bearer check: the registry is empty, so the
 * custom step is reported failed in place (200), the workflow's first step finds no tool (502), the
 * task is accepted (202) and the unknown task is 404. Anything else means the check let the request
 * through wrongly or broke it.
 */
const CALLS: readonly [string, string, unknown, number][] = [
  ["POST", "/orchestrate/custom", { steps: [{ tool: "currency-service", capability: "list_currencies" }] }, 200],
  ["POST", "/orchestrate/travel-research", { destination: "Kyoto" }, 502],
  ["POST", "/api/v1/tasks", { type: "packing_list", input: { destination: "Lisbon" } }, 202],
  ["GET", "/api/v1/tasks/00000000-0000-4000-8000-000000000000", undefined, 404],
];

for (const [method, path, body, status] of CALLS) {
  test(`${method} ${path}: 401 with WWW-Authenticate without a token, or with a wrong one; through with the right one`, async () => {
    const send = (headers: Record<string, string>) =>
      fetch(`${agent.url}${path}`, {
        method,
        headers: { "Content-Type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    for (const headers of [{}, { Authorization: "Bearer wrong" }]) {
      const refused = await send(headers);
      assert.is(refused.status, 401);
      assert.is(refused.headers.get("www-authenticate"), "Bearer");
      assert.is(((await refused.json()) as { error: { code: string } }).error.code, "UNAUTHORIZED");
    }
    const allowed = await send({ Authorization: "Bearer letmein" });
    assert.is(allowed.status, status, `${method} ${path} with the token`);
    await allowed.body?.cancel();
  });
}

test("health, the capability list and the OpenAPI document stay open", async () => {
  assert.is((await fetch(`${agent.url}/health`)).status, 200);
  assert.is((await fetch(`${agent.url}/api/capabilities`)).status, 200);
  assert.is((await fetch(`${agent.url}/openapi.json`)).status, 200);
});

test("the live OpenAPI document says what this server checks: a required bearer token, except on the framework GETs", async () => {
  const doc = (await (await fetch(`${agent.url}/openapi.json`)).json()) as any;
  assert.equal(doc.security, [{ bearerAuth: [] }]);
  assert.is(doc.components.securitySchemes.bearerAuth.scheme, "bearer");
  assert.equal(doc.paths["/health"].get.security, []);
  for (const path of ["/orchestrate/custom", "/api/v1/tasks", "/api/capabilities/trip_brief"]) {
    assert.is(doc.paths[path].post.security, undefined, `${path} inherits the requirement`);
    assert.is(doc.paths[path].post.responses["401"].content["application/json"].schema.$ref, "#/components/schemas/ErrorEnvelope");
  }
});

test.run();
