/**
 * The generated module of a `kind: a2a` component under a strict `tsc` (the repository's flags): a
 * handler calling `Remote.client().lookupCity({city})` and reading `.lat` compiles, as does a text
 * skill's `{text}`; an agent that `uses` the remote agent compiles, and a wrong field type does not.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { makeStrictProject, strictTsc } from "../support/strict-tsc.js";
import { SKILL_SCHEMAS_EXTENSION } from "../../runtime/spec/index.js";
import { a2aLockText, a2aManifest, cardJson, remoteProject } from "./a2a-support.js";

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
    await makeStrictProject(project.root, "a2a-project");
    await writeFile(join(project.root, "src", "handler.ts"), handler(`lookupCity({ city: "Paris" })`));
    const good = strictTsc(project.root);
    assert.ok(good.ok, good.output);

    await writeFile(join(project.root, "src", "handler.ts"), handler(`lookupCity({ city: 75 })`));
    const bad = strictTsc(project.root);
    assert.not.ok(bad.ok);
    assert.match(bad.output, /src\/handler\.ts\(5,\d+\): error TS2322/, bad.output);
  } finally {
    await project.cleanup();
  }
});

test.run();
