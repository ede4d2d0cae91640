/**
 * A `kind: a2a` manifest with its lock file, loaded as gen loads it: the card's skills are
 * capabilities that agents `uses`, HITL names and workflows call with checked data flow over the
 * skills' published schemas; a skill without schemas is text in, text out; MF17xx are positioned.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadProject } from "../../generator/load-project.js";
import { SKILL_SCHEMAS_EXTENSION } from "../../runtime/spec/index.js";
import { a2aLockText, a2aManifest, cardJson } from "./a2a-support.js";
import { tempProject } from "./load-helpers.js";

const RPC = "http://127.0.0.1:9/a2a";
/** A card as a Manifold agent publishes it: `lookup-city` with schemas, `chat` (natural mode) without. */
const CARD = {
  ...cardJson(RPC, ["lookup-city", "chat"]),
  capabilities: {
    extensions: [
      {
        uri: SKILL_SCHEMAS_EXTENSION,
        params: {
          skills: {
            "lookup-city": {
              input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
              output_schema: { type: "object", properties: { lat: { type: "number" }, lon: { type: "number" } }, required: ["lat", "lon"] },
            },
          },
        },
      },
    ],
  },
};
const MANIFEST = a2aManifest("http://127.0.0.1:9/.well-known/agent-card.json");

async function load(files: Readonly<Record<string, string>>) {
  const { root, cleanup } = await tempProject({ "package.json": "{}\n", ...Object.fromEntries(Object.entries(files).map(([p, t]) => [`m/${p}`, t])) });
  try {
    return await loadProject({ manifestsDir: "m", cwd: root });
  } finally {
    await cleanup();
  }
}

const where = (project: Awaited<ReturnType<typeof load>>) => project.diagnostics.map((d) => [d.code, d.file, d.line, d.column]);

const workflow = (reference: string) => `kind: workflow
name: trip
version: "1.0"
inputs:
  c: { type: string, required: true }
steps:
  - name: find
    tool: helper
    action: lookup_city
    inputs: { city: "\${inputs.c}" }
  - name: ask
    tool: helper
    action: chat
    depends_on: [find]
    inputs: { text: "${reference}" }
outputs:
  answer: "\${steps.ask.output.text}"
`;

test("a workflow step reading a field the skill's output schema lacks is MF1406 at its place; the real fields and a text skill's text pass", async () => {
  const lock = a2aLockText(CARD);
  const bad = await load({ "helper.yaml": MANIFEST, "helper.a2a-lock.json": lock, "trip.yaml": workflow("near ${steps.find.output.altitude}") });
  assert.equal(where(bad), [["MF1406", "m/trip.yaml", 15, 27]]);
  assert.match(bad.diagnostics[0]!.message, "fields: lat, lon");
  const good = await load({ "helper.yaml": MANIFEST, "helper.a2a-lock.json": lock, "trip.yaml": workflow("near ${steps.find.output.lat}") });
  assert.equal(where(good), []);
  // The text skill's output is `{text}` only.
  const text = workflow("x").replace("${steps.ask.output.text}", "${steps.ask.output.answer}");
  const wrong = await load({ "helper.yaml": MANIFEST, "helper.a2a-lock.json": lock, "trip.yaml": text });
  assert.equal(
    wrong.diagnostics.map((d) => d.code),
    ["MF1406"],
  );
});

test("an agent uses it like a tool: sensitive_capabilities by capability name; the spec carries the remote agent and skills", async () => {
  const agent = (sensitive: string) =>
    `kind: agent\nname: planner\ndescription: Plans\nuses: [helper]\ncapabilities: []\nhitl:\n  default_action: reject\n  sensitive_capabilities: [${sensitive}]\n`;
  const lock = a2aLockText(CARD);
  const project = await load({
    "helper.yaml": `${MANIFEST}auth: { token_env: HELPER_TOKEN }\ntimeout: 2m\n`,
    "helper.a2a-lock.json": lock,
    "planner.yaml": agent("lookup_city"),
  });
  assert.equal(where(project), []);
  const helper = project.manifests.find((m) => m.name === "helper")!;
  assert.is(helper.kind, "a2a");
  assert.is(helper.component!.kind, "tool");
  assert.is(helper.component!.description, "d", "the card's description when the manifest has none");
  const { hash } = JSON.parse(lock) as { hash: string };
  assert.equal(helper.component!.a2aAgent, {
    cardUrl: "http://127.0.0.1:9/.well-known/agent-card.json",
    tokenEnv: "HELPER_TOKEN",
    timeoutMs: 120_000,
    url: RPC,
    hash,
  });
  assert.equal(
    helper.component!.capabilities.map((c) => [c.name, c.key, c.endpoint, c.a2aSkill!.id]),
    [
      ["chat", "chat", "a2a:chat", "chat"],
      ["lookup_city", "lookupCity", "a2a:lookup-city", "lookup-city"],
    ],
  );
  assert.equal(helper.component!.capabilities[0]!.input, { required: [{ name: "text", type: "string", description: "The message's text" }], optional: [] });
  assert.equal(helper.component!.capabilities[0]!.output, {
    required: [{ name: "text", type: "string", description: "The agent's text answer" }],
    optional: [],
  });
  const typo = await load({ "helper.yaml": MANIFEST, "helper.a2a-lock.json": lock, "planner.yaml": agent("lookup_cty") });
  assert.equal(
    typo.diagnostics.map((d) => d.code),
    ["MF1311"],
  );
});

test("MF1701 a card URL that is not http(s); MF1702 missing lock; MF1703 a lock edited by hand; MF1704 two skills with one capability name", async () => {
  assert.equal(where(await load({ "helper.yaml": a2aManifest("file:///etc/passwd") })), [["MF1701", "m/helper.yaml", 3, 11]]);
  const missing = await load({ "helper.yaml": MANIFEST });
  assert.equal(where(missing), [["MF1702", "m/helper.yaml", 2, 7]]);
  assert.match(missing.diagnostics[0]!.message, "manifold gen --refresh-a2a");
  const edited = await load({ "helper.yaml": MANIFEST, "helper.a2a-lock.json": a2aLockText(CARD).replace('"skill chat"', '"anything"') });
  assert.equal(where(edited), [["MF1703", "m/helper.yaml", 2, 7]]);
  assert.match(edited.diagnostics[0]!.message, "does not match its agent and skills");
  const clash = await load({ "helper.yaml": MANIFEST, "helper.a2a-lock.json": a2aLockText(cardJson(RPC, ["get-city", "getCity"])) });
  assert.equal(where(clash), [["MF1704", "m/helper.yaml", 2, 7]]);
  assert.match(clash.diagnostics[0]!.message, "skills `get-city` and `getCity` of the agent both become the capability `get_city`");
});

test.run();
