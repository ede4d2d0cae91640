/**
 * The expiry processor's spans against a local OTLP receiver: each pass is a root `hitl.expiry_scan`
 * with the spec's attributes, each checkpoint it handles a `hitl.expiry_process` linked to the trace
 * the checkpoint interrupted.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createExpiryProcessor } from "../../runtime/hitl/expiry.js";
import { createMemoryCheckpointStore } from "../../runtime/hitl/index.js";
import { initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { stepCheckpoint } from "../contract/checkpoints.cases.js";
import { exportToReceiver, startOtlpReceiver } from "../telemetry/otlp-receiver.js";

const receiver = await startOtlpReceiver();
exportToReceiver(receiver.url);
await initTelemetry({ serviceName: "hitl-expiry" });
test.after(async () => {
  await shutdownTelemetry();
  await receiver.close();
});

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

test("hitl.expiry_scan carries request_id, batch_limit, counts, status and duration; hitl.expiry_process links to the interrupted trace", async () => {
  const store = createMemoryCheckpointStore();
  const now = Date.now();
  const due = stepCheckpoint({
    created_at: new Date(now - 60_000).toISOString(),
    expires_at: new Date(now - 1_000).toISOString(),
    trace: { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` },
  });
  await store.create(due);
  const pass = await createExpiryProcessor({ store, batchLimit: 10 }).runPass();
  await receiver.until(() => receiver.spans.some((s) => s.name === "hitl.expiry_scan" && s.attributes["request_id"] === pass.request_id), "the scan span");
  const scan = receiver.spans.find((s) => s.name === "hitl.expiry_scan" && s.attributes["request_id"] === pass.request_id)!;
  assert.match(String(scan.attributes["request_id"]), /^hitl-expiry-/);
  assert.equal(
    [
      scan.attributes["batch_limit"],
      scan.attributes["claimed_count"],
      scan.attributes["processed_count"],
      scan.attributes["failed_count"],
      scan.attributes["status"],
    ],
    [10, 1, 1, 0, "ok"],
  );
  assert.ok(typeof scan.attributes["duration_ms"] === "number");
  assert.is(scan.parentSpanId, undefined, "a root of its own trace");
  await receiver.until(
    () => receiver.spans.some((s) => s.name === "hitl.expiry_process" && s.attributes["checkpoint_id"] === due.checkpoint_id),
    "the process span",
  );
  const processed = receiver.spans.find((s) => s.name === "hitl.expiry_process" && s.attributes["checkpoint_id"] === due.checkpoint_id)!;
  assert.equal(
    [processed.attributes["original_trace_id"], processed.attributes["link.type"], processed.attributes["trigger"]],
    [TRACE, "hitl_expiry", "expiry_processor"],
  );
  assert.equal(
    processed.links.map((l) => l.traceId),
    [TRACE],
  );
  assert.is.not(processed.traceId, TRACE, "linked, not part of the interrupted trace");
});

test.run();
