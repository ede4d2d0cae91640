/**
 * Every OpenAPI document manifold emits passes the official 3.0 schema, redocly's `recommended` rules
 * and spectral's `spectral:oas` with zero errors: the example network's, the test fixtures', and an
 * edge-case network's (every field shape and every agent feature) in each of the three auth modes the
 * live `/openapi.json` can be in. Warnings are allowed (the README's Decisions says which remain and why).
 */
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadProject } from "../../generator/load-project.js";
import { agentOpenApi } from "../../runtime/agent/features.js";
import { buildOpenApi, type OpenApiAuth } from "../../runtime/spec/index.js";
import type { ComponentSpec } from "../../runtime/spec/types.js";
import { lintOpenApi, type Problem } from "../support/openapi-lint.js";

const root = new URL("../../", import.meta.url).pathname;
const edgeDir = new URL("./fixtures/openapi-edge/", import.meta.url).pathname;

async function committedDocuments(): Promise<string[]> {
  const files: string[] = [];
  for (const out of ["generated", "test/fixtures/generated"]) {
    // Component folders only: gen's cache (`.manifold-cache/`) holds no document.
    for (const entry of await readdir(join(root, out), { withFileTypes: true }))
      if (entry.isDirectory() && !entry.name.startsWith(".")) files.push(join(root, out, entry.name, "openapi.json"));
  }
  return files.sort();
}

const edge = await loadProject({ manifestsDir: edgeDir, cwd: root });
const edgeSpecs = edge.manifests.flatMap((m) => (m.component === undefined ? [] : [m.component]));
const documentOf = (spec: ComponentSpec, auth: OpenApiAuth) => buildOpenApi(spec, { additions: agentOpenApi(spec.agent), auth }) as any;

const folder = await mkdtemp(join(tmpdir(), "manifold-openapi-lint-"));
test.after(() => rm(folder, { recursive: true, force: true }));

async function edgeDocuments(): Promise<string[]> {
  const files: string[] = [];
  for (const spec of edgeSpecs)
    for (const auth of ["optional", "required", "none"] as const) {
      const file = join(folder, `${spec.name}-${auth}.json`);
      await writeFile(file, JSON.stringify(documentOf(spec, auth), null, 2));
      files.push(file);
    }
  return files;
}

const show = (problems: readonly Problem[]): string =>
  problems.map((p) => `${p.linter} ${p.rule} ${p.file.replace(root, "")} ${p.where}: ${p.message}`).join("\n");

test("the edge-case network loads clean and has a tool and an agent with every feature", () => {
  assert.equal(edge.diagnostics, []);
  assert.equal(edgeSpecs.map((s) => s.kind).sort(), ["agent", "tool"]);
  const agent = edgeSpecs.find((s) => s.kind === "agent")!;
  assert.ok(agent.agent?.chat && agent.agent.scheduled && agent.agent.hitl && agent.agent.tasks.length >= 3, "chat, scheduled, hitl and three task types");
});

test("every emitted document: valid OpenAPI 3.0, and zero errors from redocly (recommended) and spectral (spectral:oas)", async () => {
  const files = [...(await committedDocuments()), ...(await edgeDocuments())];
  assert.ok(files.length >= 7 + 6, `documents: ${files.length}`);
  for (const file of files) {
    const result = await new Validator().validate(file);
    assert.ok(result.valid, `${file}: ${JSON.stringify(result.errors)}`);
  }
  const problems = await lintOpenApi(files);
  const errors = problems.filter((p) => p.severity === "error");
  assert.equal(errors.length, 0, show(errors));
  // Both linters really looked at every file: each reports at least its license/contact warning.
  for (const file of files) {
    assert.ok(
      problems.some((p) => p.file === file && p.linter === "redocly"),
      `redocly saw ${file}`,
    );
    assert.ok(
      problems.some((p) => p.file === file && p.linter === "spectral"),
      `spectral saw ${file}`,
    );
  }
});

test("security: the emitted file declares an optional bearer token; the live modes say required or none; framework GETs stay open", () => {
  const tool = edgeSpecs.find((s) => s.kind === "tool")!;
  const optional = documentOf(tool, "optional");
  assert.equal(optional.components.securitySchemes, {
    bearerAuth: { type: "http", scheme: "bearer", description: "A bearer token in the Authorization header" },
  });
  assert.equal(optional.security, [{}, { bearerAuth: [] }]);
  const required = documentOf(tool, "required");
  assert.equal(required.security, [{ bearerAuth: [] }]);
  for (const doc of [optional, required]) {
    assert.equal(doc.paths["/health"].get.security, []);
    assert.equal(doc.paths["/api/capabilities"].get.security, []);
    assert.is(doc.paths["/health"].get.responses["401"], undefined);
    const everything = doc.paths["/api/capabilities/everything"].post;
    assert.equal(Object.keys(everything.responses), ["200", "400", "401", "413", "415", "500", "503"]);
  }
  const none = documentOf(tool, "none");
  assert.equal(none.security, []);
  assert.is(none.components.securitySchemes, undefined);
  assert.is(none.paths["/api/capabilities/everything"].post.responses["401"], undefined);
});

test("every tag an operation uses is declared, with a description", () => {
  for (const spec of edgeSpecs) {
    const doc = documentOf(spec, "optional");
    const declared = new Map((doc.tags as { name: string; description?: string }[]).map((t) => [t.name, t.description]));
    for (const item of Object.values(doc.paths) as any[])
      for (const op of Object.values(item) as any[])
        for (const tag of op.tags) assert.ok(typeof declared.get(tag) === "string", `${spec.name}: tag ${tag} declared with a description`);
  }
});

test("the task union has a discriminator on type, mapping each task type to its own schema", () => {
  const doc = documentOf(edgeSpecs.find((s) => s.kind === "agent")!, "optional");
  const { schemas } = doc.components;
  for (const [union, suffix] of [
    ["TaskSubmission", "TaskSubmission"],
    ["Task", "Task"],
  ] as const) {
    assert.equal(schemas[union].discriminator, {
      propertyName: "type",
      mapping: {
        by_workflow: `#/components/schemas/ByWorkflow${suffix}`,
        typed: `#/components/schemas/Typed${suffix}`,
        untyped: `#/components/schemas/Untyped${suffix}`,
      },
    });
    for (const [type, ref] of Object.entries(schemas[union].discriminator.mapping as Record<string, string>)) {
      const branch = schemas[ref.split("/").pop()!];
      assert.ok(branch.required.includes("type"), `${ref} requires type`);
      assert.equal(branch.properties.type.enum, [type]);
    }
  }
});

test.run();
