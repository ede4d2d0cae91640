/**
 * Type-level guarantees of a generated agent, checked by the compiler against the committed
 * generated/travel-agent module: a task type that needs handler code must get one, workflow task
 * types take none, task and workflow clients are typed from the manifests, and a workflow output
 * keeps the type the checker inferred for it.
 */
import { join } from "node:path";
import { Project, ts, type Diagnostic } from "ts-morph";
import { test } from "uvu";
import * as assert from "uvu/assert";

const root = new URL("../..", import.meta.url).pathname;
const project = new Project({ tsConfigFilePath: join(root, "tsconfig.json"), skipAddingFilesFromTsConfig: true });
let n = 0;

function check(body: string): string[] {
  const file = project.createSourceFile(join(root, `test/generator/__agent_typecheck_${n++}.ts`), `
import { TravelAgent, type TravelAgentHandlers } from "../../generated/travel-agent/index.js";
declare const handlers: TravelAgentHandlers;
${body}
export {};
`);
  return file.getPreEmitDiagnostics().map((d: Diagnostic) => ts.flattenDiagnosticMessageText(d.compilerObject.messageText, "\n"));
}

const PACKING = `packingList: async (input, ctx) => { await ctx.progress({ percentage: 50 }); ctx.signal.throwIfAborted(); return { destination: input.destination, items: [String(input.days ?? 3)] }; }`;

test("an agent with its task handler, typed workflow and task clients compiles", () => {
  assert.equal(check(`
await TravelAgent.serve({ handlers, tasks: { ${PACKING} } });
const run = await TravelAgent.workflows({ baseUrl: "http://127.0.0.1:1" }).travelResearch({ destination: "Kyoto" }, { aiSynthesis: false });
const temperature: number = run.outputs.temperature;
const condition: "sunny" | "cloudy" | "rain" | "snow" | "windy" = run.outputs.condition;
const place: string = (await TravelAgent.workflows().cityCompare({ first: "a", second: "b", third: "c", fourth: "d" })).outputs.third.place;
const tasks = TravelAgent.tasks({ baseUrl: "http://127.0.0.1:1" });
const { task_id } = await tasks.packingList.submit({ destination: "Lisbon", days: 4 }, { timeout: "2m" });
const items: string[] = (await tasks.packingList.wait(task_id)).items;
const capital: string = (await tasks.research.wait(task_id)).capital;
void temperature; void condition; void place; void items; void capital;
`), []);
});

test("a missing handler for a code task type is a compile error that names it", () => {
  assert.match(check(`await TravelAgent.serve({ handlers });`).join("\n"), /tasks/);
  assert.match(check(`await TravelAgent.serve({ handlers, tasks: {} });`).join("\n"), /packingList/);
});

test("a workflow task type takes no handler; a wrong task result type is a compile error", () => {
  assert.ok(check(`await TravelAgent.serve({ handlers, tasks: { ${PACKING}, research: async () => ({}) } });`).length > 0);
  assert.ok(check(`await TravelAgent.serve({ handlers, tasks: { packingList: async () => ({ destination: "x", items: "socks" }) } });`).length > 0);
});

test("workflow and task inputs are typed: a missing required input or an unknown task type is a compile error", () => {
  assert.match(check(`await TravelAgent.workflows().travelResearch({ home_currency: "EUR" });`).join("\n"), /destination/);
  assert.ok(check(`await TravelAgent.workflows().travelResearch({ destination: "x", budget: 3 });`).length > 0);
  assert.ok(check(`await TravelAgent.tasks().packingList.submit({ destination: "x", days: "four" });`).length > 0);
  assert.ok(check(`await TravelAgent.tasks().unknownType.submit({});`).length > 0);
  assert.ok(check(`const t: number = (await TravelAgent.workflows().travelResearch({ destination: "x" })).outputs.headline;`).length > 0);
});

test.run();
