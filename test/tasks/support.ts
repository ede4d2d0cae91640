/** Shared by the task suites: an agent spec with task types and serving it (waiting is test/support/wait.ts). */
import { serveComponent, type RunningComponent } from "../../runtime/component/index.js";
import type { ComponentSpec, TaskTypeSpec } from "../../runtime/spec/types.js";
import { createTasksExtension, type TasksExtensionOptions, type TaskView } from "../../runtime/tasks/index.js";
import { createLogger, type Logger } from "../../runtime/telemetry/index.js";
import { json, rawRequest, type RawResponse } from "../runtime/support.js";

const task = (type: string, key: string, extra: Partial<TaskTypeSpec> = {}): TaskTypeSpec => ({ type, key, ...extra });

/**
 * `echo` (declared input `{text: string, times?: integer}`), `work` (any object, handled by
 * whatever the suite passes), `slow` (1 s default timeout) and `summarise` (runs a workflow).
 */
export const agentSpec: ComponentSpec = {
  kind: "agent",
  name: "errand-agent",
  description: "An agent with task types, for tests",
  version: "1.0.0",
  capabilities: [],
  agent: {
    uses: [],
    orchestration: {
      custom: false,
      endpoints: [],
      workflows: [
        {
          name: "summarise-text",
          version: "1.0",
          inputs: [
            { name: "text", type: "string", required: true },
            { name: "words", type: "integer", required: false },
          ],
          steps: [],
          outputs: [],
        },
      ],
    },
    tasks: [
      task("echo", "echo", {
        input: { required: [{ name: "text", type: "string" }], optional: [{ name: "times", type: "integer" }] },
        output: { required: [{ name: "text", type: "string" }], optional: [] },
      }),
      task("work", "work"),
      task("slow_job", "slowJob", { timeoutMs: 1_000 }),
      task("summarise", "summarise", { workflow: "summarise-text" }),
    ],
  },
};

/** Serves the agent with the tasks extension on a free loopback port, nothing else. */
export async function serveAgent(options: TasksExtensionOptions & { readonly healthOnly?: boolean }): Promise<RunningComponent> {
  const { healthOnly, ...tasks } = options;
  const extension = createTasksExtension(agentSpec, { log: silentLogger(), shutdownTimeoutMs: 2_000, ...tasks });
  return serveComponent(agentSpec, {
    port: 0,
    handlers: {},
    handleSignals: false,
    registry: false,
    log: () => undefined,
    extensions: [extension],
    healthOnly: healthOnly ?? extension.healthOnly,
  });
}

/** The task runtime's logger writing nowhere, or into `lines` for a test to read. */
export function silentLogger(lines?: string[]): Logger {
  return createLogger({ component: "tasks", env: {}, write: (line) => void lines?.push(line) });
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export async function submit(base: string, body: unknown): Promise<string> {
  const response = await post(`${base}/api/v1/tasks`, body);
  if (response.status !== 202) throw new Error(`submit answered ${response.status}: ${response.text}`);
  return (json(response) as { task_id: string }).task_id;
}

export async function view(base: string, taskId: string): Promise<TaskView> {
  const response = await rawRequest(`${base}/api/v1/tasks/${taskId}`);
  if (response.status !== 200) throw new Error(`GET answered ${response.status}: ${response.text}`);
  return json(response) as TaskView;
}
