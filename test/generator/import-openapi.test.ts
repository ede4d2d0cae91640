/**
 * `manifold import openapi` on real public documents (Swagger 2.0 petstore, USPTO and STAPI in OpenAPI
 * 3.0, Train Travel in 3.1, a subset of GitHub's): the manifests validate with no errors and the import
 * reports (every operation, every positioned diagnostic) are the committed fixtures.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadProject } from "../../generator/load-project.js";
import { importDocument } from "../../generator/import-openapi/document.js";
import { importFiles } from "../../generator/import-openapi/index.js";
import { readSource } from "../../generator/import-openapi/source.js";

const FIXTURES = "test/fixtures/openapi";
const DOCUMENTS = {
  "petstore-swagger2.yaml": "petstore",
  "uspto-oas30.yaml": "uspto",
  "star-trek-oas30.yaml": "stapi",
  "train-travel-oas31.yaml": "train-travel",
  "github-issues-subset.json": "github-issues",
  "edge-cases-oas30.yaml": "edge-cases",
} as const;

for (const [file, name] of Object.entries(DOCUMENTS)) {
  test(`${file}: the manifest validates and the import report is the fixture`, async () => {
    const source = `${FIXTURES}/${file}`;
    const tool = importDocument(await readSource(source), name);
    const files = importFiles(tool, source);
    const dir = await mkdtemp(join(tmpdir(), "manifold-import-"));
    try {
      await writeFile(join(dir, `${name}.yaml`), files[`${name}.yaml`]!);
      const project = await loadProject({ manifestsDir: dir });
      assert.equal(
        project.diagnostics.filter((d) => d.severity === "error").map((d) => d.message),
        [],
      );
      assert.equal(project.manifests.length, 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const report = files[`${name}.import-report.md`]!;
    const expected = `${FIXTURES}/reports/${name}.import-report.md`;
    if (process.env["UPDATE_FIXTURES"] === "1") await writeFile(expected, report);
    assert.fixture(report, await readFile(expected, "utf8"));
  });
}

test("an operation's diagnostics name it and point at the line and column in the document", async () => {
  const tool = importDocument(await readSource(`${FIXTURES}/train-travel-oas31.yaml`), "train-travel");
  const union = tool.diagnostics.find((d) => d.message.startsWith("anyOf with several branches"));
  assert.ok(union);
  assert.equal(union.operations, ["POST /bookings/{bookingId}/payment"]);
  assert.match(union.where, /^test\/fixtures\/openapi\/train-travel-oas31\.yaml:\d+:\d+$/);
});

test("a problem in a shared component schema is one diagnostic at the schema, naming every operation that uses it", async () => {
  const source = `${FIXTURES}/edge-cases-oas30.yaml`;
  const tool = importDocument(await readSource(source), "edge-cases");
  const maps = tool.diagnostics.filter((d) => d.message.startsWith("free-form additionalProperties"));
  assert.is(maps.length, 1);
  assert.equal(maps[0]!.operations, ["GET /things", "POST /things", "GET /things/{id}"]);
  // The position is Meta.labels in components, not any of the three operations.
  const lines = (await readFile(source, "utf8")).split("\n");
  const line = Number(/:(\d+):\d+$/.exec(maps[0]!.where)![1]);
  assert.match(lines[line - 1]!, /^\s+type: object$/);
  assert.match(lines[line - 2]!, /^\s+labels:$/);
  const report = importFiles(tool, source)["edge-cases.import-report.md"]!;
  assert.match(report, "(3 operations: `GET /things`, `POST /things`, `GET /things/{id}`): free-form additionalProperties");
});

test("security: bearer and apiKey-in-header become credentials named by environment variable; other schemes are diagnostics at the scheme", async () => {
  const tool = importDocument(await readSource(`${FIXTURES}/edge-cases-oas30.yaml`), "edge-cases");
  const sent = Object.fromEntries(tool.proxy.operations.map((o) => [o.capability, o.credentials]));
  assert.equal(sent, {
    list_things: ["bearerAuth"], // the document's requirement
    create_thing: ["bearerAuth"],
    get_thing: ["bearerAuth"],
    add_pet: ["apiKey"], // the operation's own
    admin_report: ["bearerAuth"], // oauth2 or bearer: the one the proxy can send
    session_info: undefined, // a cookie: not sent, and said
    public_info: undefined, // security: [] switches it off
  });
  assert.equal(tool.proxy.credentials, {
    bearerAuth: { type: "bearer", env: "EDGE_CASES_TOKEN" },
    apiKey: { type: "header", header: "X-Api-Key", env: "EDGE_CASES_API_KEY" },
  });
  const cookie = tool.diagnostics.filter((d) => d.message.startsWith("security scheme"));
  assert.equal(
    cookie.map((d) => [d.operations, d.message]),
    [[["GET /session"], 'security scheme "cookieKey" is an apiKey in a cookie: the proxy does not send it']],
  );
  const petstore = importDocument(await readSource(`${FIXTURES}/petstore-swagger2.yaml`), "petstore");
  const oauth = petstore.diagnostics.filter((d) => d.message.startsWith('security scheme "petstore_auth" is oauth2'));
  assert.is(oauth.length, 1, "one diagnostic for the scheme, however many operations use it");
  assert.equal(oauth[0]!.operations, ["PUT /pet", "POST /pet", "GET /pet/findByStatus", "GET /pet/findByTags", "DELETE /pet/{petId}"]);
  assert.equal(petstore.proxy.credentials, { api_key: { type: "header", header: "api_key", env: "PETSTORE_API_KEY" } });
});

test("a oneOf with a discriminator becomes one object: the tag a required enum, the variants' members optional, and a diagnostic at the schema", async () => {
  const tool = importDocument(await readSource(`${FIXTURES}/edge-cases-oas30.yaml`), "edge-cases");
  const addPet = tool.manifest.capabilities.find((c) => c.name === "add_pet")!;
  const expected = {
    required: [{ name: "kind", type: "string", enum: ["cat", "dog"] }],
    optional: [
      { name: "lives", type: "integer" },
      { name: "breed", type: "string", enum: ["collie", "pug"] },
    ],
  };
  assert.equal(addPet.input, expected);
  assert.equal(addPet.output, expected);
  assert.equal(
    tool.proxy.operations.find((o) => o.capability === "add_pet")!.parameters.map((p) => `${p.in}:${p.name}`),
    ["body:kind", "body:lives", "body:breed"],
  );
  const widened = tool.diagnostics.filter((d) => d.message.startsWith("oneOf with a discriminator"));
  assert.is(widened.length, 1);
  assert.equal(widened[0]!.operations, ["POST /pets"]);
  assert.match(widened[0]!.message, "(kind: cat, dog) is widened to one object");
  assert.not.ok(tool.diagnostics.some((d) => d.message.startsWith("oneOf with several branches")));
});

test("a form body required by the operation skips it, and the report lists it as skipped", async () => {
  const tool = importDocument(await readSource(`${FIXTURES}/petstore-swagger2.yaml`), "petstore");
  assert.ok(tool.operations.some((o) => o.operation === "POST /pet/{petId}" && o.capability === undefined));
  assert.ok(tool.diagnostics.some((d) => d.operations.includes("POST /pet/{petId}") && /formData.*skipped/.test(d.message)));
  assert.not.ok(tool.manifest.capabilities.some((c) => c.name === "update_pet_with_form"));
});

test.run();
