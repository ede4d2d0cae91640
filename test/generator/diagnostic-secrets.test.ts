/**
 * A credential written into a manifest never reaches a CI log through a diagnostic: the code frame of
 * MF1318 (and of any diagnostic whose line holds a secret) masks the value, in every output format.
 */
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { main } from "../../generator/cli.js";
import { formatDiagnostics } from "../../runtime/manifest/index.js";
import { GEOCODING_TOOL, tempProject } from "./load-helpers.js";
import { loadSources } from "../support/manifests.js";

const SECRETS = ["sk-live-4f9a8b7c6d5e", "sk_live_block_0123456789", "hunter2-redis-pass", "ghp_multiline_9876", "tok-in-list-5555"];

const DEPLOYMENT = `kind: deployment
name: net
components:
  geocoding-service:
    entry: dist/geo.js
    env: { PORT: "1", OPENAI_API_KEY: ${SECRETS[0]} }
    secrets: [OTHER_TOKEN]
  weather-service:
    entry: dist/weather.js
    env:
      STRIPE_SECRET_KEY: "${SECRETS[1]}"
      REDIS_URL: redis://:${SECRETS[2]}@redis:6379/0
      GITHUB_TOKEN: >-
        ${SECRETS[3]}
      OTHER_TOKEN: '${SECRETS[4]}'
      NOTE: plain words
`;

const WEATHER = GEOCODING_TOOL.replace("name: geocoding-service", "name: weather-service");

async function validate(format: string): Promise<{ code: number; output: string }> {
  const { root, cleanup } = await tempProject({ "m/geo.yaml": GEOCODING_TOOL, "m/weather.yaml": WEATHER, "m/deploy.yaml": DEPLOYMENT });
  try {
    const chunks: string[] = [];
    const io = { out: (t: string) => void chunks.push(t), err: (t: string) => void chunks.push(t), color: false };
    const code = await main(["validate", "--manifests", join(root, "m"), "--format", format], io);
    return { code, output: chunks.join("") };
  } finally {
    await cleanup();
  }
}

test("MF1318 on a credential in env: the code frame shows the key and masks the value, in every format", async () => {
  for (const format of ["pretty", "json", "github"]) {
    const { code, output } = await validate(format);
    assert.is(code, 1, format);
    assert.match(output, /MF1318/, format);
    assert.match(output, /`OPENAI_API_KEY` looks like a credential/, format);
    assert.match(output, /`STRIPE_SECRET_KEY` looks like a credential/, format);
    assert.match(output, /`REDIS_URL` is set by the emitted Deployment/, format);
    for (const secret of SECRETS) assert.not.ok(output.includes(secret), `${format} output carries ${secret}:\n${output}`);
  }
  const { output } = await validate("pretty");
  assert.match(output, /6 \| {5}env: \{ PORT: "1", OPENAI_API_KEY: \*\*\*\* \}/, "the frame keeps its shape: key, masked value");
  assert.match(output, /11 \| {7}STRIPE_SECRET_KEY: \*\*\*\*/);
  assert.match(output, /12 \| {7}REDIS_URL: redis:\/\/:\*\*\*\*@redis:6379\/0/, "a URL keeps all but its password");
});

test("a frame on any line near a secret masks it: a syntax error, a block scalar's continuation line", () => {
  const broken = `kind: deployment\nname: net\ncomponents:\n  geocoding-service:\n    env: { API_KEY: ${SECRETS[0]}, NOTE: [unclosed }\n`;
  const project = loadSources([
    { file: "m/geo.yaml", text: GEOCODING_TOOL },
    { file: "m/deploy.yaml", text: broken },
  ]);
  assert.ok(project.diagnostics.length > 0);
  const pretty = formatDiagnostics(project.diagnostics, "pretty", { color: false, ...(project.sources ? { sources: project.sources } : {}) });
  assert.match(pretty, /deploy\.yaml/);
  assert.not.ok(pretty.includes(SECRETS[0]!), pretty);
  const [first] = pretty.split("\n\n");
  const [, source, caret] = first!.split("\n");
  assert.is(source!.slice(caret!.indexOf("^")), "}", "the caret stays under the column the masking moved");
  const at = (line: number) => ({ file: "m/deploy.yaml", line, column: 1, severity: "error" as const, code: "MF1318" as const, message: "m" });
  const sources = new Map([["m/deploy.yaml", DEPLOYMENT]]);
  const frames = formatDiagnostics([at(14), at(15), at(16)], "pretty", { color: false, sources });
  assert.not.ok(frames.includes(SECRETS[3]!), frames);
  assert.match(frames, /14 \| {9}\*\*\*\*/, "the folded scalar's line under GITHUB_TOKEN is masked");
  assert.match(frames, /16 \| {7}NOTE: plain words/, "a value that is no secret is shown as written");
});

test.run();
