/**
 * The generated module of a `kind: a2a` component under a strict `tsc` (the repository's flags): a
 * handler calling `Remote.client().lookupCity({city})` and reading `.lat` compiles, as does a text
 * skill's `{text}`; an agent that `uses` the remote agent compiles, and a wrong field type does not.
 */
import { spawnSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { SKILL_SCHEMAS_EXTENSION } from "../../runtime/spec/index.js";
import { a2aLockText, a2aManifest, cardJson, remoteProject } from "./a2a-support.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const TSC = join(REPO, "node_modules", "typescript", "bin", "tsc");

const CARD = {
  ...cardJson("http://127.0.0.1:9/a2a", ["lookup-city", "chat"]),
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

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    customConditions: ["source"],
    lib: ["ES2023"],
    types: ["node"],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    resolveJsonModule: true,
    verbatimModuleSyntax: true,
    noEmit: true,
    // As the repository's tsconfig: eventsource-parser exports TypeScript sources under "source" too.
    paths: {
      "eventsource-parser": [join(REPO, "node_modules/eventsource-parser/dist/index.d.ts")],
      "eventsource-parser/stream": [join(REPO, "node_modules/eventsource-parser/dist/stream.d.ts")],
    },
  },
  include: ["generated", "src"],
};

const handler = (call: string) => `import { Remote } from "../generated/remote/index.js";
import { Helper } from "../generated/helper/index.js";

export async function locate(): Promise<string> {
  const out = await Remote.client().${call};
  const lat: number = out.lat;
  const answer = await Remote.client().chat({ text: "Where is it?" });
  return \`\${lat} \${answer.text}\`;
}

export const usedSpecs = Helper.uses.remote.spec.capabilities.length;
`;

function tsc(root: string): { ok: boolean; output: string } {
  const run = spawnSync(process.execPath, [TSC, "-p", root, "--pretty", "false"], { cwd: root, encoding: "utf8", timeout: 180_000 });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}

test("a handler calling the A2A client typechecks strictly; a wrong field type does not", async () => {
  const agent = "kind: agent\nname: helper\ndescription: Helps\nuses: [remote]\ncapabilities: []\n";
  const project = await remoteProject({
    "remote.yaml": a2aManifest("http://127.0.0.1:9/.well-known/agent-card.json", "", "remote"),
    "remote.a2a-lock.json": a2aLockText(CARD),
    "helper.yaml": agent,
  });
  try {
    const gen = await project.gen();
    assert.is(gen.code, 0, gen.err);
    await writeFile(join(project.root, "package.json"), '{ "name": "a2a-project", "type": "module" }\n');
    await symlink(join(REPO, "node_modules"), join(project.root, "node_modules"), "dir");
    await writeFile(join(project.root, "tsconfig.json"), JSON.stringify(TSCONFIG));
    await mkdir(join(project.root, "src"));
    await writeFile(join(project.root, "src", "handler.ts"), handler(`lookupCity({ city: "Paris" })`));
    const good = tsc(project.root);
    assert.ok(good.ok, good.output);

    await writeFile(join(project.root, "src", "handler.ts"), handler(`lookupCity({ city: 75 })`));
    const bad = tsc(project.root);
    assert.not.ok(bad.ok);
    assert.match(bad.output, /src\/handler\.ts\(5,\d+\): error TS2322/, bad.output);
  } finally {
    await project.cleanup();
  }
});

test.run();
