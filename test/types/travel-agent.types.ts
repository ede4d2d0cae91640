/**
 * Type-level guarantees of a generated agent, compiled by `tsc --noEmit` against the committed
 * generated/travel-agent module: a task type that needs handler code must get one, workflow task
 * types take none, task and workflow clients are typed from the manifests, and a workflow output
 * keeps the type the checker inferred for it. Lines that must not compile carry `@ts-expect-error`;
 * nothing here runs.
 */
import { defineAgent } from "agent-manifold/runtime/codegen/v1";
import { TravelAgent, type TravelAgentHandlers } from "../../generated/travel-agent/index.js";

declare const handlers: TravelAgentHandlers;
type PackingList = (
  input: { destination: string; days?: number },
  ctx: { progress(p: { percentage: number }): Promise<void>; signal: AbortSignal },
) => Promise<{ destination: string; items: string[] }>;
const packingList: PackingList = async (input, ctx) => {
  await ctx.progress({ percentage: 50 });
  ctx.signal.throwIfAborted();
  return { destination: input.destination, items: [String(input.days ?? 3)] };
};

export async function anAgentWithItsTaskHandlerAndTypedClientsCompiles(): Promise<void> {
  await TravelAgent.serve({ handlers, tasks: { packingList } });
  const run = await TravelAgent.workflows({ baseUrl: "http://127.0.0.1:1" }).travelResearch({ destination: "Kyoto" }, { aiSynthesis: false });
  const temperature: number = run.outputs.temperature;
  const condition: "sunny" | "cloudy" | "rain" | "snow" | "windy" = run.outputs.condition;
  const place: string = (await TravelAgent.workflows().cityCompare({ first: "a", second: "b", third: "c", fourth: "d" })).outputs.third.place;
  const tasks = TravelAgent.tasks({ baseUrl: "http://127.0.0.1:1" });
  const { task_id } = await tasks.packingList.submit({ destination: "Lisbon", days: 4 }, { timeout: "2m" });
  const items: string[] = (await tasks.packingList.wait(task_id)).items;
  const capital: string = (await tasks.research.wait(task_id)).capital;
  await TravelAgent.serve({ handlers, tasks: { packingList }, scheduled: async ({ instruction }) => instruction });
  void temperature;
  void condition;
  void place;
  void items;
  void capital;
}

export async function aMissingTaskHandlerDoesNotCompile(): Promise<void> {
  // @ts-expect-error tasks (with packingList) is required
  await TravelAgent.serve({ handlers });
  // @ts-expect-error packingList is missing
  await TravelAgent.serve({ handlers, tasks: {} });
}

export async function aWorkflowTaskTakesNoHandlerAndTaskResultsAreTyped(): Promise<void> {
  // @ts-expect-error research runs a workflow: it takes no handler
  await TravelAgent.serve({ handlers, tasks: { packingList, research: async () => ({}) } });
  // @ts-expect-error items must be a string[]
  await TravelAgent.serve({ handlers, tasks: { packingList: async () => ({ destination: "x", items: "socks" }) } });
  // @ts-expect-error a scheduled handler returns the response text
  await TravelAgent.serve({ handlers, tasks: { packingList }, scheduled: async () => 42 });
}

export async function workflowAndTaskInputsAreTyped(): Promise<void> {
  // @ts-expect-error destination is required
  await TravelAgent.workflows().travelResearch({ home_currency: "EUR" });
  // @ts-expect-error budget is not an input of travel-research
  await TravelAgent.workflows().travelResearch({ destination: "x", budget: 3 });
  // @ts-expect-error days is a number
  await TravelAgent.tasks().packingList.submit({ destination: "x", days: "four" });
  // @ts-expect-error there is no task type unknownType
  await TravelAgent.tasks().unknownType.submit({});
  // @ts-expect-error headline is a string
  const t: number = (await TravelAgent.workflows().travelResearch({ destination: "x" })).outputs.headline;
  void t;
}

export async function naturalModeIsTypedWhereTheManifestEnablesIt(): Promise<void> {
  const answer = await TravelAgent.workflows().natural("weather in Kyoto?", { aiSynthesis: true });
  // @ts-expect-error a needs_input answer has no response: the status narrows it
  void answer.response;
  if (answer.status === "needs_input") {
    const question: string = answer.question;
    const missing: readonly string[] = answer.missing_fields;
    void [question, missing];
    return;
  }
  const text: string | undefined = answer.response;
  const tools: readonly string[] = answer.tools_used;
  const confidence: number = answer.confidence;
  void [text, tools, confidence];
  // @ts-expect-error the request is text, not an object
  await TravelAgent.workflows().natural({ request: "x" });
  // An agent whose manifest does not set orchestration.natural has no natural() method.
  const plain = defineAgent<{}, {}, {}, {}>(TravelAgent.spec, {});
  // @ts-expect-error no natural mode on this agent
  await plain.workflows().natural("x");
}
