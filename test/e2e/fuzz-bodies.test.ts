/**
 * A seeded flood of bad bodies over real HTTP: 10,000 requests, each made invalid on purpose (malformed
 * or non-object JSON, nesting past the limit, strings past the body limit, wrong types, missing
 * required fields with prototype keys added, invalid UTF-8, a wrong content type), spread over a
 * generated tool's capability and an agent's /orchestrate/custom, /orchestrate/<workflow> and
 * /api/v1/tasks. Every answer must be a 4xx error envelope; no process logs a stack trace or an error;
 * each heap, after a forced GC, is back within 10 % of where it started. The seed is printed on failure.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { killAll, startFixture, type Fixture } from "./helpers.js";
import { fuzzSeed, seededRandom, type SeededRandom } from "../support/random.js";

const SEED = fuzzSeed(20261125);
const TOTAL = 10_000;
const CONCURRENCY = 8;

interface Target {
  readonly name: string;
  url: string;
  readonly valid: Record<string, unknown>;
  /** Path of a required string field. */
  readonly field: readonly string[];
  /** Where a deeply nested value goes: free-form where the route has such a place (custom step params). */
  readonly deep: readonly string[];
}

let tool: Fixture;
let agent: Fixture;
const targets: Target[] = [
  { name: "tool capability", url: "", valid: { destination: "Paris", nights: 3, mode: "train" }, field: ["destination"], deep: ["destination"] },
  {
    name: "custom",
    url: "",
    valid: { steps: [{ tool: "geocoding-service", capability: "geocode_location", params: { location: "x" } }] },
    field: ["steps"],
    deep: ["steps", "0", "params", "location"],
  },
  { name: "workflow", url: "", valid: { destination: "Kyoto", home_currency: "EUR" }, field: ["destination"], deep: ["destination"] },
  {
    name: "tasks",
    url: "",
    valid: { type: "packing_list", input: { destination: "Lisbon" } },
    field: ["input", "destination"],
    deep: ["input", "destination"],
  },
];

function setAt(body: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  let node = copy as Record<string, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  if (value === undefined) delete node[path.at(-1)!];
  else node[path.at(-1)!] = value;
  return copy;
}

type Bad = { readonly kind: string; readonly body: Buffer | string; readonly type?: string };

function badBody(target: Target, rand: SeededRandom): Bad {
  const { pick, int } = rand;
  const text = JSON.stringify(target.valid);
  const roll = rand();
  if (roll < 0.14) return { kind: "malformed", body: text.slice(0, int(1, text.length - 1)) };
  if (roll < 0.24) return { kind: "not an object", body: pick(["[]", "[1,2]", '"text"', "42", "null", "true", '[{"steps":[]}]']) };
  if (roll < 0.38) {
    const depth = int(65, 3_000);
    const open = pick(["[", '{"d":']);
    const close = open === "[" ? "]" : "}";
    return { kind: "deep", body: JSON.stringify(setAt(target.valid, target.deep, "@")).replace('"@"', `${open.repeat(depth)}1${close.repeat(depth)}`) };
  }
  if (roll < 0.41) return { kind: "huge", body: JSON.stringify(setAt(target.valid, target.field, "h".repeat(int(1_100_000, 1_500_000)))) };
  if (roll < 0.58) {
    const wrong = pick([42, -1.5, true, null, [], ["a"], {}, { nested: { x: 1 } }]);
    return { kind: "wrong type", body: JSON.stringify(setAt(target.valid, target.field, wrong)) };
  }
  if (roll < 0.75) {
    // Prototype keys (own properties after JSON.parse) beside a missing required field.
    const keys = pick(['"__proto__":{"polluted":1}', '"constructor":{"prototype":{"polluted":1}}', '"prototype":{"x":1}', '"__proto__":null']);
    const body = JSON.stringify(setAt(target.valid, target.field, undefined));
    return { kind: "prototype keys", body: body === "{}" ? `{${keys}}` : body.replace(/^\{/, `{${keys},`) };
  }
  if (roll < 0.88) {
    const bytes = Buffer.from(JSON.stringify(setAt(target.valid, target.field, "ab@cd")));
    const at = bytes.indexOf("@");
    bytes[at] = pick([0xff, 0xc0, 0xfe, 0x80]);
    return { kind: "invalid utf-8", body: bytes };
  }
  if (roll < 0.94) return { kind: "content type", body: text, type: pick(["text/plain", "application/xml", "application/json; charset=latin1"]) };
  return { kind: "missing field", body: JSON.stringify(setAt(target.valid, target.field, undefined)) };
}

async function send(target: Target, bad: Bad): Promise<{ status: number; text: string }> {
  const response = await fetch(target.url, { method: "POST", headers: { "content-type": bad.type ?? "application/json" }, body: bad.body });
  return { status: response.status, text: await response.text() };
}

async function heap(fixture: Fixture): Promise<number> {
  const seq = fixture.events().filter((e) => e["event"] === "heap").length + 1;
  fixture.child.kill("SIGUSR2");
  const event = await fixture.waitFor((e) => e["event"] === "heap" && e["seq"] === seq);
  return event["used"] as number;
}

async function flood(count: number, rand: SeededRandom, failures: string[]): Promise<Map<string, number>> {
  const kinds = new Map<string, number>();
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const index = next++;
      if (index >= count) return;
      const target = targets[index % targets.length]!;
      const bad = badBody(target, rand);
      kinds.set(bad.kind, (kinds.get(bad.kind) ?? 0) + 1);
      const { status, text } = await send(target, bad);
      let envelope = false;
      try {
        const parsed = JSON.parse(text) as { success?: unknown; error?: { code?: unknown } };
        envelope = parsed.success === false && typeof parsed.error?.code === "string";
      } catch {
        envelope = false;
      }
      if (status < 400 || status > 499 || !envelope) failures.push(`#${index} ${target.name} ${bad.kind}: ${status} ${text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return kinds;
}

test.before(async () => {
  const env = { FIXTURE_HEAP_PROBE: "1", REDIS_URL: "", OPENAI_API_KEY: "", MANIFOLD_LOG_LEVEL: "info" };
  [tool, agent] = await Promise.all([startFixture("trip-tool.ts", env), startFixture("natural-agent.ts", env)]);
  await tool.waitFor((e) => e["event"] === "listening");
  await agent.waitFor((e) => e["event"] === "listening");
  targets[0]!.url = `${tool.url}/api/capabilities/plan_trip`;
  targets[1]!.url = `${agent.url}/orchestrate/custom`;
  targets[2]!.url = `${agent.url}/orchestrate/travel-research`;
  targets[3]!.url = `${agent.url}/api/v1/tasks`;
});
test.after(() => killAll());

test(`${TOTAL} seeded bad bodies (seed ${SEED}): every answer a 4xx envelope, no stack trace or error logged, heaps back within 10 %`, async () => {
  const rand = seededRandom(SEED);
  const failures: string[] = [];
  // Warm up (JIT, caches, connection pools), then take the baseline.
  await flood(400, rand, failures);
  const before = [await heap(tool), await heap(agent)];
  const logsBefore = [tool.stderr().length, agent.stderr().length];
  const kinds = await flood(TOTAL, rand, failures);
  assert.equal(failures.slice(0, 10), [], `seed ${SEED}: ${failures.length} answers were not 4xx envelopes`);
  assert.ok(kinds.size >= 9, `every kind of bad body was sent: ${JSON.stringify([...kinds])}`);
  const logged = [tool.stderr().slice(logsBefore[0]), agent.stderr().slice(logsBefore[1])].join("\n");
  assert.not.match(logged, /^\s+at .+\(.+:\d+:\d+\)$/m, "no stack trace");
  assert.not.match(logged, /"level":"error"/, "nothing logged at error level");
  const after = [await heap(tool), await heap(agent)];
  const mb = (n: number) => (n / 1e6).toFixed(1);
  console.log(
    `fuzz seed ${SEED}: ${TOTAL} bodies (${[...kinds].map(([k, n]) => `${k} ${n}`).join(", ")}); heap tool ${mb(before[0]!)} → ${mb(after[0]!)} MB, agent ${mb(before[1]!)} → ${mb(after[1]!)} MB`,
  );
  after.forEach((used, i) =>
    assert.ok(used <= before[i]! * 1.1, `${i === 0 ? "tool" : "agent"} heap ${(before[i]! / 1e6).toFixed(1)} → ${(used / 1e6).toFixed(1)} MB`),
  );
});

test.run();
