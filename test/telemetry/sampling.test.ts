/**
 * Sampling comes only from the standard OTEL_TRACES_SAMPLER variables, never from APP_ENV (the spec):
 * a production profile with no sampler configured exports every trace (the SDK's default,
 * parent-based always-on), and OTEL_TRACES_SAMPLER=always_off exports none.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { getTelemetry, initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { exportToReceiver, startOtlpReceiver } from "./otlp-receiver.js";

test("APP_ENV=production with no OTEL_TRACES_SAMPLER: all 40 root traces are exported", async () => {
  const receiver = await startOtlpReceiver();
  try {
    exportToReceiver(receiver.url, { APP_ENV: "production" });
    delete process.env["OTEL_TRACES_SAMPLER"];
    await initTelemetry({ serviceName: "sampled" });
    for (let i = 0; i < 40; i += 1) getTelemetry().startSpan(`root-${i}`, { attributes: {} })?.end();
    await receiver.until(() => receiver.spans.filter((s) => s.name.startsWith("root-")).length >= 40, "40 root spans");
    assert.is(new Set(receiver.spans.filter((s) => s.name.startsWith("root-")).map((s) => s.traceId)).size, 40);
    assert.ok(
      receiver.spans.every((s) => s.resource["deployment.environment.name"] === "production"),
      "the profile still applies",
    );
  } finally {
    await shutdownTelemetry();
    await receiver.close();
  }
});

test.run();
