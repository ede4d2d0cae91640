/**
 * The skill registry's admin API over real HTTP, on an agent served from a real manifest whose
 * `skills:` names a real skill folder: the bundled skill published at start, reads open, writes only
 * for a proven identity listed in MANIFOLD_SKILL_ADMINS, bad input refused with pointers, each call a
 * `skills.admin.<op>` span with skill.* attributes and never a body.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import { createSkillStore } from "../../runtime/skills/store/index.js";
import { createStore } from "../../runtime/store/index.js";
import { initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { loadComponentFile } from "../support/manifests.js";
import { QUIET_AGENT } from "../support/serve.js";
import { exportToReceiver, startOtlpReceiver } from "../telemetry/otlp-receiver.js";

// A trusted gateway names the caller (X-User-ID); only `skill-admin` may change the registry.
process.env["MANIFOLD_TRUST_IDENTITY_HEADERS"] = "true";
process.env["MANIFOLD_SKILL_ADMINS"] = "skill-admin, agent:release-bot";

const receiver = await startOtlpReceiver();
exportToReceiver(receiver.url);
await initTelemetry({ serviceName: "skills-admin" });

const INSTRUCTIONS = "Check the weather at the destination first. Use [the checklist](references/checklist.md).";
const dir = mkdtempSync(join(tmpdir(), "manifold-skills-admin-"));
function writeSkill(instructions: string): void {
  mkdirSync(join(dir, "skills/packing-advice/references"), { recursive: true });
  writeFileSync(
    join(dir, "skills/packing-advice/SKILL.md"),
    `---\nname: packing-advice\ndescription: What to pack for a trip\nversion: 1.0.0\n---\n${instructions}\n`,
  );
  writeFileSync(join(dir, "skills/packing-advice/references/checklist.md"), "- umbrella\n- passport\n");
}
writeSkill(INSTRUCTIONS);
writeFileSync(
  join(dir, "agent.yaml"),
  "kind: agent\nname: skilled-agent\ndescription: An agent with a skill\ncapabilities:\n  - name: ask\n    description: ask\nskills:\n  - ./skills/packing-advice\n  - { namespace: travel }\n",
);

const backing = createStore({ env: {} });
const store = createSkillStore({ store: backing, env: {} });
const spec = await loadComponentFile(join(dir, "agent.yaml"));
const agent = await serveAgent(spec, [], { ...QUIET_AGENT, handlers: { ask: async () => ({}) }, tasks: {}, skills: { store }, enableOpenApi: true });

test.after(async () => {
  await agent.close();
  await shutdownTelemetry();
  await receiver.close();
  await backing.close();
  rmSync(dir, { recursive: true, force: true });
});

const ADMIN = { "X-User-ID": "skill-admin" };
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${agent.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}
const version = (v: string, instructions = `Travel customs ${v}.`) => ({ version: v, description: `Local customs ${v}`, instructions });

test("the bundled skill is published at start: listed, readable with its resource listing, its resource read on its own", async () => {
  const list = await call("GET", "/skills");
  assert.is(list.status, 200);
  const [summary] = list.body.skills;
  assert.equal([summary.namespace, summary.name, summary.active, summary.description], ["skilled-agent", "packing-advice", "1.0.0", "What to pack for a trip"]);
  const one = await call("GET", "/skills/skilled-agent/packing-advice");
  assert.is(one.status, 200);
  assert.is(one.body.instructions, INSTRUCTIONS);
  assert.equal(one.body.resources, [{ path: "references/checklist.md", bytes: 22 }], "paths and sizes, no texts");
  assert.is(one.body.digest, spec.agent!.skills!.bundled[0]!.digest, "the digest gen embedded");
  const resource = await call("GET", "/skills/skilled-agent/packing-advice/resources/references/checklist.md?version=1.0.0");
  assert.equal(resource.body, { path: "references/checklist.md", bytes: 22, text: "- umbrella\n- passport\n" });
  assert.is((await call("GET", "/skills/skilled-agent/packing-advice/resources/references/none.md")).status, 404);
  assert.is((await call("GET", "/skills/skilled-agent/unknown")).status, 404);
});

test("the agent's OpenAPI document describes the admin API", async () => {
  const doc = (await call("GET", "/openapi.json")).body;
  const operations = Object.entries(doc.paths)
    .filter(([path]) => path.startsWith("/skills"))
    .flatMap(([path, item]: [string, any]) => Object.entries(item).map(([method, op]: [string, any]) => `${method.toUpperCase()} ${path} ${op.operationId}`));
  assert.equal(operations, [
    "GET /skills listSkills",
    "GET /skills/{namespace}/{name} getSkill",
    "GET /skills/{namespace}/{name}/resources/{path} getSkillResource",
    "POST /skills/{namespace}/{name}/versions publishSkillVersion",
    "PUT /skills/{namespace}/{name}/pin pinSkill",
    "POST /skills/{namespace}/{name}/versions/{version}/retire retireSkillVersion",
  ]);
  assert.ok(doc.components.schemas.SkillVersion && doc.components.schemas.SkillSummary);
});

test("writes need an admin: anonymous is 401 with a Bearer challenge, another user 403; nothing changes", async () => {
  const anonymous = await call("POST", "/skills/travel/local-customs/versions", version("1.0.0"));
  assert.equal([anonymous.status, anonymous.body.error.code], [401, "UNAUTHORIZED"]);
  assert.is(anonymous.headers.get("www-authenticate"), "Bearer");
  assert.match(anonymous.body.error.message, /MANIFOLD_SKILL_ADMINS/);
  const stranger = await call("POST", "/skills/travel/local-customs/versions", version("1.0.0"), { "X-User-ID": "mallory" });
  assert.equal([stranger.status, stranger.body.error.code], [403, "FORBIDDEN"]);
  assert.not.match(JSON.stringify(stranger.body), /skill-admin/, "the admin list is not told");
  assert.is((await call("PUT", "/skills/skilled-agent/packing-advice/pin", { version: "1.0.0" })).status, 401);
  assert.is((await call("POST", "/skills/skilled-agent/packing-advice/versions/1.0.0/retire", undefined, { "X-User-ID": "mallory" })).status, 403);
  assert.is((await call("GET", "/skills?namespace=travel")).body.skills.length, 0);
  const [bundled] = (await call("GET", "/skills?namespace=skilled-agent")).body.skills;
  assert.equal([bundled.active, bundled.pinned, bundled.versions[0].retired_at], ["1.0.0", undefined, undefined]);
});

test("an admin publishes (201, then 200 for the same content, 409 for other content), pins, unpins and retires", async () => {
  const first = await call(
    "POST",
    "/skills/travel/local-customs/versions",
    { ...version("1.0.0"), license: "MIT", resources: [{ path: "references/tips.md", text: "Tip 10%." }] },
    ADMIN,
  );
  assert.is(first.status, 201);
  assert.equal([first.body.version, first.body.license, first.body.resources], ["1.0.0", "MIT", [{ path: "references/tips.md", bytes: 8 }]]);
  const again = await call(
    "POST",
    "/skills/travel/local-customs/versions",
    { ...version("1.0.0"), license: "MIT", resources: [{ path: "references/tips.md", text: "Tip 10%." }] },
    ADMIN,
  );
  assert.equal([again.status, again.body.published_at], [200, first.body.published_at]);
  const changed = await call("POST", "/skills/travel/local-customs/versions", version("1.0.0", "Other text."), ADMIN);
  assert.equal([changed.status, changed.body.error.code], [409, "CONFLICT"]);
  assert.is(
    (await call("POST", "/skills/travel/local-customs/versions", version("1.1.0"), { "X-Manifold-Agent-Name": "release-bot" })).status,
    201,
    "an agent listed as agent:<name>",
  );
  assert.is((await call("GET", "/skills/travel/local-customs")).body.version, "1.1.0");
  const pinned = await call("PUT", "/skills/travel/local-customs/pin", { version: "1.0.0" }, ADMIN);
  assert.equal([pinned.status, pinned.body.active, pinned.body.pinned], [200, "1.0.0", "1.0.0"]);
  assert.is((await call("GET", "/skills/travel/local-customs")).body.instructions, "Travel customs 1.0.0.");
  assert.is((await call("GET", "/skills/travel/local-customs/resources/references/tips.md")).body.text, "Tip 10%.", "the pinned version's resource");
  const unpinned = await call("PUT", "/skills/travel/local-customs/pin", { version: null }, ADMIN);
  assert.equal([unpinned.body.active, unpinned.body.pinned], ["1.1.0", undefined]);
  const retired = await call("POST", "/skills/travel/local-customs/versions/1.1.0/retire", undefined, ADMIN);
  assert.equal([retired.status, retired.body.active], [200, "1.0.0"]);
  assert.ok(retired.body.versions[0].retired_at);
  assert.is((await call("PUT", "/skills/travel/local-customs/pin", { version: "1.1.0" }, ADMIN)).body.error.code, "CONFLICT");
  assert.is((await call("PUT", "/skills/travel/local-customs/pin", { version: "9.9.9" }, ADMIN)).status, 404);
  assert.is((await call("GET", "/skills/travel/local-customs?version=1.1.0")).body.retired_at, retired.body.versions[0].retired_at, "still readable");
});

test("bad input is INVALID_INPUT with pointers: unknown and prototype keys, bad names, versions and paths; sizes past the bounds 413", async () => {
  const proto = await call("POST", "/skills/travel/x/versions", '{"version":"1.0.0","description":"d","instructions":"i","__proto__":{"admin":true}}', ADMIN);
  assert.equal([proto.status, proto.body.error.code, proto.body.error.details.map((d: any) => d.pointer)], [400, "INVALID_INPUT", ["/__proto__"]]);
  const names = await call("POST", "/skills/Travel/-x/versions", version("1.0.0"), ADMIN);
  assert.equal(
    names.body.error.details.map((d: any) => d.pointer),
    ["/namespace", "/name"],
  );
  const fields = await call(
    "POST",
    "/skills/travel/x/versions",
    { version: "1 0", description: "", instructions: 3, resources: [{ path: "../up.md", text: "x" }, { path: "a.md" }] },
    ADMIN,
  );
  assert.equal(
    fields.body.error.details.map((d: any) => d.pointer),
    ["/resources/1/text"],
  );
  const shape = await call(
    "POST",
    "/skills/travel/x/versions",
    { version: "1 0", description: "", instructions: 3, resources: [{ path: "../up.md", text: "x" }] },
    ADMIN,
  );
  assert.equal(
    shape.body.error.details.map((d: any) => d.pointer),
    ["/version"],
  );
  const rest = await call(
    "POST",
    "/skills/travel/x/versions",
    { version: "1.0", description: "", instructions: 3, resources: [{ path: "../up.md", text: "x" }] },
    ADMIN,
  );
  assert.equal(
    rest.body.error.details.map((d: any) => d.pointer),
    ["/description", "/instructions", "/resources/0/path"],
  );
  assert.equal(
    (await call("PUT", "/skills/travel/x/pin", {}, ADMIN)).body.error.details.map((d: any) => d.pointer),
    ["/version"],
  );
  assert.is((await call("GET", "/skills/travel/local-customs?version=a%20b")).body.error.code, "INVALID_INPUT");
  assert.is((await call("GET", "/skills?namespace=NOPE")).status, 400);
  const big = await call("POST", "/skills/travel/x/versions", version("1.0.0", "x".repeat(40_000)), ADMIN);
  assert.equal([big.status, big.body.error.code], [413, "PAYLOAD_TOO_LARGE"]);
  const huge = await call("POST", "/skills/travel/x/versions", version("1.0.0", "x".repeat(1_100_000)), ADMIN);
  assert.equal([huge.status, huge.body.error.code], [413, "PAYLOAD_TOO_LARGE"], "past the component's body limit");
  assert.is(
    (await call("GET", "/skills?namespace=travel")).body.skills.some((s: any) => s.name === "x"),
    false,
  );
});

test("an agent restarted with a changed SKILL.md under the same version keeps serving the registry's version and logs an error naming the skill", async () => {
  writeSkill("Changed instructions, same version.");
  const changed = await loadComponentFile(join(dir, "agent.yaml"));
  const lines: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => lines.push(String(chunk)) > 0) as typeof process.stderr.write;
  let restarted: Awaited<ReturnType<typeof serveAgent>> | undefined;
  try {
    restarted = await serveAgent(changed, [], { ...QUIET_AGENT, handlers: { ask: async () => ({}) }, tasks: {}, skills: { store } });
  } finally {
    process.stderr.write = write;
    writeSkill(INSTRUCTIONS);
  }
  try {
    const entries = lines.flatMap((line) => {
      try {
        return [JSON.parse(line)];
      } catch {
        return [];
      }
    });
    const error = entries.find((entry) => entry.level === "error" && /bundled skill/.test(entry.message));
    assert.ok(error, `an error line, got ${lines.join("")}`);
    assert.match(error.message, /skilled-agent\/packing-advice@1\.0\.0/);
    assert.match(error.message, /raise the skill's version/);
    assert.not.match(lines.join(""), /Changed instructions/, "the body is not logged");
    const served = await fetch(`${restarted!.url}/skills/skilled-agent/packing-advice`).then((r) => r.json() as Promise<any>);
    assert.is(served.instructions, INSTRUCTIONS, "the published version stands");
  } finally {
    await restarted?.close();
  }
});

test("each admin call is a skills.admin.<op> span over skills.store.<op>, with skill.* attributes and never a body", async () => {
  const secret = "Never-in-a-span instructions.";
  await call("POST", "/skills/travel/spanned/versions", version("2.0.0", secret), ADMIN);
  await call("GET", "/skills/travel/spanned/resources/none.md?version=2.0.0");
  const named = (name: string) => receiver.spans.find((s) => s.name === name && s.attributes["skill.name"] === "spanned");
  await receiver.until(
    () => named("skills.admin.publish") !== undefined && named("skills.store.publish") !== undefined && named("skills.admin.resource") !== undefined,
    "the admin spans",
  );
  const publish = named("skills.admin.publish")!;
  assert.equal([publish.attributes["skill.namespace"], publish.attributes["skill.version"]], ["travel", "2.0.0"]);
  const stored = named("skills.store.publish")!;
  assert.is(stored.traceId, publish.traceId);
  assert.is(stored.parentSpanId, publish.spanId, "the store call is a child of the admin call");
  assert.is(named("skills.admin.resource")!.attributes["skill.resource"], "none.md");
  assert.is(named("skills.admin.resource")!.status, 2, "a 404 marks the span failed");
  const everything = JSON.stringify(receiver.spans.map((s) => [s.attributes, s.events]));
  assert.not.match(everything, /Never-in-a-span/);
  assert.not.match(everything, /umbrella/);
});

test.run();
