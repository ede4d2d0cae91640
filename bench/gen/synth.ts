/**
 * A synthetic project for bench:gen: `tools` tool manifests of `capabilities` capabilities each (string,
 * number, integer, boolean fields; enums; nested objects; arrays of objects), and one agent that uses
 * the first few tools with a workflow over them, so gen's link and data-flow checks run too.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface SynthSize {
  readonly tools: number;
  readonly capabilities: number;
}

const toolName = (t: number): string => `tool-${String(t).padStart(5, "0")}`;

/** One capability: the mix of field types varies with its index so no two tools are alike. */
function capability(t: number, c: number): string {
  const kinds = ["string", "number", "integer", "boolean"];
  const scalar = (name: string, i: number, extra = ""): string => `        - { name: ${name}, type: ${kinds[(t + c + i) % kinds.length]}${extra} }\n`;
  return [
    `  - name: op_${c}\n`,
    `    description: Operation ${c} of tool ${t}\n`,
    "    input:\n      required:\n",
    `        - { name: id, type: string, example: "x${c}", description: Identifier of the thing, max_length: 200 }\n`,
    "        - { name: amount, type: number, example: 1.5 }\n",
    `        - { name: mode, type: string, enum: [fast, slow, m${c % 7}] }\n`,
    "      optional:\n",
    scalar("limit", 2),
    scalar("flag", 1),
    "        - { name: tags, type: array, items: { type: string } }\n",
    "        - name: filter\n          type: object\n          fields:\n            required:\n",
    `              - { name: field, type: string }\n              - { name: value, type: ${kinds[(t + c) % kinds.length]} }\n`,
    "            optional:\n              - { name: negate, type: boolean }\n",
    "    output:\n      required:\n",
    "        - { name: id, type: string }\n",
    `        - { name: status, type: string, enum: [ok, failed, pending] }\n`,
    scalar("score", 3, ", description: A measured figure"),
    "        - name: items\n          type: array\n          items:\n            type: object\n            fields:\n              required:\n",
    "                - { name: key, type: string }\n                - { name: count, type: integer }\n",
    "              optional:\n                - { name: note, type: string }\n",
    "      optional:\n        - { name: meta, type: object }\n",
  ].join("");
}

export function toolManifest(t: number, capabilities: number, revision = 0): string {
  const caps = Array.from({ length: capabilities }, (_, c) => capability(t, c)).join("");
  return `kind: tool\nname: ${toolName(t)}\ndescription: Synthetic tool ${t}${revision > 0 ? ` (revision ${revision})` : ""}\ncapabilities:\n${caps}`;
}

/** The agent uses up to five tools; its workflow chains op_0 of each through the previous step's output. */
function agentFiles(tools: number): Map<string, string> {
  const used = Array.from({ length: Math.min(5, tools) }, (_, t) => toolName(t));
  const steps = used
    .map((tool, i) =>
      i === 0
        ? `  - name: s0\n    tool: ${tool}\n    action: op_0\n    inputs: { id: "\${inputs.id}", amount: 1, mode: fast }\n`
        : `  - name: s${i}\n    tool: ${tool}\n    action: op_0\n    depends_on: [s${i - 1}]\n    inputs: { id: "\${steps.s${i - 1}.output.id}", amount: 1, mode: slow }\n`,
    )
    .join("");
  const workflow = `kind: workflow\nname: chain\nversion: "1.0"\ndescription: Chains op_0 of each used tool\ninputs:\n  id: { type: string, required: true }\nsteps:\n${steps}outputs:\n  last: "\${steps.s${used.length - 1}.output.id}"\n  status: "\${steps.s0.output.status}"\n`;
  const agent = `kind: agent\nname: bench-agent\ndescription: Uses the first tools through a workflow\nuses: [${used.join(", ")}]\norchestration:\n  workflows: [chain]\ncapabilities:\n  - name: run\n    description: Runs the chain\n    type: orchestrator\n    input:\n      required:\n        - { name: id, type: string }\n    output:\n      required:\n        - { name: last, type: string }\n`;
  return new Map([
    ["agent.yaml", agent],
    ["chain.yaml", workflow],
  ]);
}

/** Writes the project's manifests into `dir` (created); answers the tool manifest paths by index. */
export function writeProject(dir: string, { tools, capabilities }: SynthSize): string[] {
  mkdirSync(dir, { recursive: true });
  const paths: string[] = [];
  for (let t = 0; t < tools; t++) {
    const path = join(dir, `${toolName(t)}.yaml`);
    writeFileSync(path, toolManifest(t, capabilities));
    paths.push(path);
  }
  for (const [name, text] of agentFiles(tools)) writeFileSync(join(dir, name), text);
  return paths;
}
