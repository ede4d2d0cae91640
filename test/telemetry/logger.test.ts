/** JSON log lines (and DEV_MODE text) with the fields the design lists. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { withRequestContext } from "../../runtime/outbound/index.js";
import { createLogger, registerSecret } from "../../runtime/telemetry/index.js";

const test = suite("logger");

function capture(env: NodeJS.ProcessEnv = {}, options: { level?: "debug" | "info" | "warn" | "error" } = {}) {
  const lines: string[] = [];
  const log = createLogger({ service: "weather-service", component: "outbound", env, write: (line) => void lines.push(line), ...options });
  return { log, lines };
}

test("one JSON object per line: timestamp, level, service, component, message, request_id, then fields", () => {
  const { log, lines } = capture();
  log.info("called", { status: 200, capability: "x", message: "cannot replace the message" });
  withRequestContext({ requestId: "req-9" }, () => log.warn("inside a request"));
  log("callable form");
  assert.is(lines.length, 3);
  const first = JSON.parse(lines[0]!) as Record<string, unknown>;
  assert.equal(Object.keys(first), ["timestamp", "level", "service", "component", "message", "status", "capability"]);
  assert.match(String(first["timestamp"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(
    { ...first, timestamp: "t" },
    { timestamp: "t", level: "info", service: "weather-service", component: "outbound", message: "called", status: 200, capability: "x" },
  );
  const second = JSON.parse(lines[1]!) as Record<string, unknown>;
  assert.is(second["request_id"], "req-9");
  assert.is(second["level"], "warn");
  assert.is((JSON.parse(lines[2]!) as Record<string, unknown>)["level"], "info");
  assert.not.ok("trace.trace_id" in first, "no trace ids while telemetry is off");
});

test("levels filter; MANIFOLD_LOG_LEVEL sets the default and a bad value fails by name", () => {
  const { log, lines } = capture({ MANIFOLD_LOG_LEVEL: "warn" });
  log.debug("d");
  log.info("i");
  log.warn("w");
  log.error("e", { error: Object.assign(new Error("boom"), { code: "X" }) });
  assert.equal(
    lines.map((l) => (JSON.parse(l) as { message: string }).message),
    ["w", "e"],
  );
  assert.equal((JSON.parse(lines[1]!) as { error: unknown }).error, { name: "Error", message: "boom", code: "X" });
  assert.throws(() => createLogger({ env: { MANIFOLD_LOG_LEVEL: "loud" } }), /MANIFOLD_LOG_LEVEL/);
});

test("DEV_MODE=true writes readable text", () => {
  const { log, lines } = capture({ DEV_MODE: "true" });
  withRequestContext({ requestId: "req-1" }, () => log.warn("slow call", { ms: 812 }));
  assert.match(lines[0]!, /^\d{4}-\d\d-\d\dT[\d:.]+Z WARN {2}weather-service\/outbound slow call {2}request_id=req-1 ms=812$/);
});

test("DEV_MODE=true is verbose: debug lines are written unless MANIFOLD_LOG_LEVEL or the option says otherwise", () => {
  const dev = capture({ DEV_MODE: "true" });
  dev.log.debug("planner prompt built", { chars: 120 });
  assert.is(dev.lines.length, 1);
  assert.match(dev.lines[0]!, /DEBUG weather-service\/outbound planner prompt built/);
  const quiet = capture({ DEV_MODE: "true", MANIFOLD_LOG_LEVEL: "warn" });
  quiet.log.debug("d");
  quiet.log.info("i");
  assert.is(quiet.lines.length, 0, "an explicit MANIFOLD_LOG_LEVEL wins over DEV_MODE");
  const option = capture({ DEV_MODE: "true" }, { level: "info" });
  option.log.debug("d");
  assert.is(option.lines.length, 0, "the level option wins over both");
  const prod = capture({ DEV_MODE: "false" });
  prod.log.debug("d");
  assert.is(prod.lines.length, 0, "without DEV_MODE the default stays info");
});

test("registered secrets are redacted from messages and fields", () => {
  const { log, lines } = capture();
  registerSecret("sk-live-123456");
  log.error("failed with sk-live-123456", { header: "x sk-live-123456 y" });
  assert.not.match(lines[0]!, "sk-live-123456");
  assert.match(lines[0]!, "failed with [REDACTED]");
});

test.run();
