/**
 * The `scheduled` handler's input, typed by name: an agent with `scheduled: {input}` gets
 * `<Agent>ScheduledInput` (the declared fields) and `<Agent>ScheduledHandler` from its generated
 * module. Under a strict `tsc`, a handler module typed with them reads `input.destination` as a
 * string and is accepted by `serve({ scheduled })`; a wrong use of a field is a type error. With
 * `scheduled: true` the input is any object, by the same names. The names are reserved (MF1321).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { makeStrictProject, strictTsc } from "../support/strict-tsc.js";
import { loadManifestText } from "../support/manifests.js";
import { mcpProject } from "./mcp-support.js";

const AGENT = (scheduled: string) => `kind: agent
name: brief-agent
description: Briefs
capabilities: []
scheduled: ${scheduled}
`;

const handler = (
  use: string,
) => `import { BriefAgent, type BriefAgentScheduledHandler, type BriefAgentScheduledInput } from "../generated/brief-agent/index.js";

export const scheduled: BriefAgentScheduledHandler = async ({ instruction, input }) => {
  ${use}
  return instruction;
};

export const payload: BriefAgentScheduledInput = { destination: "Kyoto", days: 3 };

export async function start(): Promise<void> {
  await BriefAgent.serve({ handlers: {}, scheduled });
}
`;

test("scheduled.input types the handler's input by name; serve() takes the typed handler; a misuse does not compile", async () => {
  const declared = "\n  input:\n    required:\n      - { name: destination, type: string }\n    optional:\n      - { name: days, type: integer }";
  const project = await mcpProject({ "brief-agent.yaml": AGENT(declared) });
  try {
    const gen = await project.gen();
    assert.is(gen.code, 0, gen.err);
    await makeStrictProject(project.root, "scheduled-types");
    await writeFile(
      join(project.root, "src", "handler.ts"),
      handler("const city: string = input.destination; const days: number | undefined = input.days; void city; void days;"),
    );
    const good = strictTsc(project.root);
    assert.ok(good.ok, good.output);

    await writeFile(join(project.root, "src", "handler.ts"), handler("const days: string = input.destination.length + input.days; void days;"));
    const bad = strictTsc(project.root);
    assert.not.ok(bad.ok);
    assert.match(bad.output, /src\/handler\.ts\(4,\d+\): error TS(2322|18048)/, bad.output);
  } finally {
    await project.cleanup();
  }
});

test("scheduled: true names the same types, input any object", async () => {
  const project = await mcpProject({ "brief-agent.yaml": AGENT("true") });
  try {
    const gen = await project.gen();
    assert.is(gen.code, 0, gen.err);
    const module = await project.read("generated/brief-agent/index.ts");
    assert.match(module, /export type BriefAgentScheduledInput = Readonly<Record<string, unknown>>;/);
    assert.match(module, /export type BriefAgentScheduledHandler = ScheduledHandler<BriefAgentScheduledInput>;/);
  } finally {
    await project.cleanup();
  }
});

test("MF1321: a capability whose input type would be <Agent>ScheduledInput clashes on a scheduled agent only", () => {
  const capability = "  - { name: brief_agent_scheduled, description: d }\n";
  const clash = loadManifestText("m/x.yaml", AGENT("true").replace("capabilities: []\n", `capabilities:\n${capability}`));
  assert.equal(
    clash.diagnostics.map((d) => d.code),
    ["MF1321"],
  );
  assert.match(clash.diagnostics[0]!.message, /BriefAgentScheduledInput/);
  const unscheduled = loadManifestText("m/x.yaml", AGENT("false").replace("capabilities: []\n", `capabilities:\n${capability}`));
  assert.equal(unscheduled.diagnostics, []);
});

test.run();
