/**
 * The workflow executor's health-check operation (SPEC "Outbound calls made by the orchestrator": "Both
 * the service-call and the health-check operations of the workflow executor follow the same two-layer
 * resolution"): `orchestrator.healthCheck(component)` GETs the component's `/health` through the same
 * caller as a step, so the token is the per-call one, else the request context's, else the configured
 * one, with the propagated headers; a real component answers healthy, degraded or unhealthy.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent } from "../../runtime/component/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createOrchestrator } from "../../runtime/orchestration/index.js";
import { withRequestContext } from "../../runtime/outbound/index.js";

/** A component's /health on loopback that records what each probe carried. */
async function recordingHealth(): Promise<{ url: string; seen: IncomingHttpHeaders[]; close: () => Promise<void> }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push({ ...req.headers, "x-path": req.url });
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ status: "healthy" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test("the health check carries the per-call token, else the request context's, else the configured one, and the propagated headers", async () => {
  const health = await recordingHealth();
  const orchestrator = createOrchestrator({
    baseUrls: { probe: health.url },
    registry: false,
    token: "configured-token",
    headers: { "x-tenant": "configured" },
    executionStore: false,
  });
  try {
    assert.equal(await orchestrator.healthCheck("probe"), { component: "probe", status: "healthy" });
    await orchestrator.healthCheck("probe", { token: "per-call-token", headers: { "x-tenant": "per-call" } });
    await withRequestContext({ token: "context-token", headers: { "x-tenant": "context" } }, () => orchestrator.healthCheck("probe"));
    assert.equal(
      health.seen.map((h) => [h["x-path"], h.authorization, h["x-tenant"]]),
      [
        ["/health", "Bearer configured-token", "configured"],
        ["/health", "Bearer per-call-token", "per-call"],
        ["/health", "Bearer context-token", "context"],
      ],
    );
    assert.ok(
      health.seen.every((h) => typeof h["x-manifold-request-id"] === "string"),
      "the caller's request id header",
    );
  } finally {
    await orchestrator.close();
    await health.close();
  }
});

test("a real component: healthy, degraded, unhealthy (503) and unreachable; an unknown component is NOT_FOUND", async () => {
  let reported: "healthy" | "degraded" | "unhealthy" = "healthy";
  const spec = { kind: "tool" as const, name: "probed", description: "probed", version: "1.0.0", capabilities: [] };
  const running = await serveComponent(spec, { port: 0, registry: false, handleSignals: false, log: () => {}, handlers: {}, healthCheck: () => reported });
  const orchestrator = createOrchestrator({ baseUrls: { probed: running.url, gone: "http://127.0.0.1:9" }, registry: false, executionStore: false });
  try {
    assert.is((await orchestrator.healthCheck("probed")).status, "healthy");
    reported = "degraded";
    assert.is((await orchestrator.healthCheck("probed")).status, "degraded");
    reported = "unhealthy";
    const unhealthy = await orchestrator.healthCheck("probed");
    assert.is(unhealthy.status, "unhealthy");
    assert.match(unhealthy.error?.message ?? "", /answered 503/, "the 503 is the reason");
    const gone = await orchestrator.healthCheck("gone");
    assert.is(gone.status, "unhealthy");
    assert.is(gone.error?.code, "NETWORK_ERROR");
    const unknown = await orchestrator.healthCheck("nobody").then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(unknown, ManifoldError);
    assert.is((unknown as ManifoldError).code, "NOT_FOUND");
  } finally {
    await orchestrator.close();
    await running.close();
  }
});

test.run();
