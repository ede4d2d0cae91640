/**
 * The TypeScript `manifold init` writes: handlers, the network (every component in one process), the
 * start file and a test that serves the network and calls it through the typed clients.
 */
import type { Template } from "./manifests.js";

const GREETER_HANDLERS = (full: boolean) => `import type { GreeterHandlers } from "../../generated/greeter/index.js";

/** The greeter's capabilities: a missing one, a wrong input or output type is a compile error. */
export const greeterHandlers: GreeterHandlers = {
  greet: async ({ name, excited = false }) => ({ greeting: \`Hello, \${name}\${excited ? "!" : "."}\` }),
${full ? "  farewell: async ({ name }) => ({ message: `Goodbye, ${name}.` }),\n" : ""}};
`;

const AGENT_IMPORTS = `import type { UsesClients } from "agent-manifold/runtime/codegen/v1";
import type { WelcomeAgentHandlers, WelcomeAgentUses } from "../../generated/welcome-agent/index.js";
`;

const FULL_AGENT_IMPORTS = `import type { ChatHandler, TaskContext, UsesClients } from "agent-manifold/runtime/codegen/v1";
import type {
  WelcomeAgentHandlers,
  WelcomeAgentUses,
  WelcomePackTaskInput,
  WelcomePackTaskResult,
} from "../../generated/welcome-agent/index.js";
`;

const AGENT_HANDLERS = `

/** The agent's capabilities, calling the tools it \`uses\` through their typed clients. */
export function createWelcomeAgentHandlers(tools: UsesClients<typeof WelcomeAgentUses>): WelcomeAgentHandlers {
  return {
    welcome: async ({ guest }, ctx) => {
      const { greeting } = await tools.greeter.greet({ name: guest }, { signal: ctx.signal });
      return { message: \`\${greeting} Welcome aboard.\` };
    },
  };
}
`;

const FULL_AGENT_EXTRAS = `
/** The welcome_pack task: progress after each guest (GET /api/v1/tasks/<id>), the signal passed on so a cancel stops it. */
export function createWelcomePack(tools: UsesClients<typeof WelcomeAgentUses>) {
  return async ({ guests }: WelcomePackTaskInput, ctx: TaskContext): Promise<WelcomePackTaskResult> => {
    const greetings: string[] = [];
    for (const [i, name] of guests.entries()) {
      await ctx.progress({ current_step: i + 1, total_steps: guests.length, step_name: name, percentage: Math.round((100 * i) / guests.length) });
      greetings.push((await tools.greeter.greet({ name }, { signal: ctx.signal })).greeting);
    }
    return { greetings };
  };
}

/** Chat without a language model: each message runs the welcome-flow workflow for the name it ends with. */
export const chatHandler: ChatHandler = async function* ({ message }, { runWorkflow }) {
  const guest = /([A-Z][\\w-]*)\\W*$/.exec(message)?.[1];
  if (guest === undefined) {
    yield "Tell me who to welcome (for example: “Please welcome Ada”).";
    return;
  }
  const out = await runWorkflow("welcome-flow", { guest });
  yield \`\${String(out["first"])} \${String(out["second"])}\`;
};
`;

function network(template: Template): string {
  const agent = template !== "minimal";
  const full = template === "full";
  const imports = [
    'import type { RunningComponent } from "agent-manifold/runtime/codegen/v1";',
    'import { Greeter } from "../generated/greeter/index.js";',
    ...(agent ? ['import { WelcomeAgent } from "../generated/welcome-agent/index.js";'] : []),
    'import { greeterHandlers } from "./handlers/greeter.js";',
    ...(agent ? [`import { ${full ? "chatHandler, createWelcomePack, " : ""}createWelcomeAgentHandlers } from "./handlers/welcome-agent.js";`] : []),
  ];
  const agentServe = `  // No URLs: the greeter registered itself in the process's registry (Redis when REDIS_URL is set), and
  // the agent's clients find it by name before every call.
  const tools = WelcomeAgent.clients();
  const welcomeAgent = await WelcomeAgent.serve({
    handlers: createWelcomeAgentHandlers(tools),
${full ? "    tasks: { welcomePack: createWelcomePack(tools) },\n    chat: chatHandler,\n" : ""}    port: portOf(WelcomeAgent.spec.port),
  });
`;
  return `${imports.join("\n")}

export interface Network {
  readonly greeter: RunningComponent;
${agent ? "  readonly welcomeAgent: RunningComponent;\n" : ""}  close(): Promise<void>;
}

/** Serves every component in this process; \`ephemeral\` picks free ports instead of the manifests' ports. */
export async function startNetwork({ ephemeral = false }: { ephemeral?: boolean } = {}): Promise<Network> {
  const portOf = (manifestPort: number | undefined) => (ephemeral ? 0 : (manifestPort ?? 0));
  const greeter = await Greeter.serve({ handlers: greeterHandlers, port: portOf(Greeter.spec.port) });
${agent ? agentServe : ""}  const running = [greeter${agent ? ", welcomeAgent" : ""}];
  return { greeter${agent ? ", welcomeAgent" : ""}, close: async () => void (await Promise.all(running.map((r) => r.close()))) };
}
`;
}

const START = (template: Template) => `import { startNetwork } from "./network.js";

// MANIFOLD_EPHEMERAL_PORTS=true: free ports instead of the manifests' ports.
const network = await startNetwork({ ephemeral: process.env["MANIFOLD_EPHEMERAL_PORTS"] === "true" });
console.log(\`greeter        \${network.greeter.url}\`);
${template === "minimal" ? "" : "console.log(`welcome-agent  ${network.welcomeAgent.url}`);\n"}console.log(\`Try: curl -s -X POST \${network.greeter.url}/api/capabilities/greet -H 'Content-Type: application/json' -d '{"name":"Ada"}'\`);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void network.close().then(() => process.exit(0)));
`;

function testFile(template: Template): string {
  const agent = template !== "minimal";
  const full = template === "full";
  const agentTests = `
test("welcome-agent.welcome calls the greeter through its typed client", async () => {
  const agent = WelcomeAgent.client({ baseUrl: network.welcomeAgent.url });
  assert.deepEqual(await agent.welcome({ guest: "Ada" }), { message: "Hello, Ada. Welcome aboard." });
});
`;
  const fullTests = `
test("the welcome-flow workflow greets twice", async () => {
  const workflows = WelcomeAgent.workflows({ baseUrl: network.welcomeAgent.url });
  const run = await workflows.welcomeFlow({ guest: "Ada" });
  assert.deepEqual(run.outputs, { first: "Hello, Ada.", second: "Hello, Ada!" });
});

test("the welcome_pack task runs in the background and its result is typed", async () => {
  const tasks = WelcomeAgent.tasks({ baseUrl: network.welcomeAgent.url });
  const { task_id } = await tasks.welcomePack.submit({ guests: ["Ada", "Grace"] });
  const result = await tasks.welcomePack.wait(task_id, { timeoutMs: 20_000 });
  assert.deepEqual(result.greetings, ["Hello, Ada.", "Hello, Grace."]);
});
`;
  return `import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Greeter } from "../generated/greeter/index.js";
${agent ? 'import { WelcomeAgent } from "../generated/welcome-agent/index.js";\n' : ""}import { startNetwork, type Network } from "../src/network.js";

let network: Network;
before(async () => {
  network = await startNetwork({ ephemeral: true });
});
after(async () => {
  await network.close();
});

test("greeter.greet answers through its typed client", async () => {
  const greeter = Greeter.client({ baseUrl: network.greeter.url });
  assert.deepEqual(await greeter.greet({ name: "Ada", excited: true }), { greeting: "Hello, Ada!" });
});
${agent ? agentTests : ""}${full ? fullTests : ""}`;
}

/** src/**, test/** → their text. */
export function codeFiles(template: Template): Record<string, string> {
  const files: Record<string, string> = {
    "src/handlers/greeter.ts": GREETER_HANDLERS(template === "full"),
    "src/network.ts": network(template),
    "src/start.ts": START(template),
    "test/network.test.ts": testFile(template),
  };
  if (template === "agent") files["src/handlers/welcome-agent.ts"] = `${AGENT_IMPORTS}${AGENT_HANDLERS}`;
  if (template === "full") files["src/handlers/welcome-agent.ts"] = `${FULL_AGENT_IMPORTS}${AGENT_HANDLERS}${FULL_AGENT_EXTRAS}`;
  return files;
}
