/**
 * The bench's agent, in a process of its own as in a deployment: registered on REDIS_URL as
 * `bench-agent`; each run it receives is one stdout line `<task_id> <epoch ms>`.
 */
import { defineAgent, type ComponentSpec } from "../../runtime/codegen/v1/index.js";

const spec: ComponentSpec = {
  kind: "agent",
  name: "bench-agent",
  description: "receives scheduled runs",
  version: "1.0.0",
  capabilities: [],
  agent: { uses: [], orchestration: { custom: false, workflows: [], endpoints: [] }, tasks: [], scheduled: true },
};
let lines: string[] = [];
// One write per event-loop turn, not per run: the bench measures the scheduler, not stdout.
const flush = () => {
  if (lines.length > 0) process.stdout.write(lines.join(""));
  lines = [];
};
setInterval(flush, 5).unref();
const running = await defineAgent<{}, {}>(spec, {}).serve({
  handlers: {},
  port: 0,
  log: () => undefined,
  scheduled: ({ task_id }) => {
    lines.push(`${task_id} ${Date.now()}\n`);
    return "ok";
  },
});
process.stdout.write(`listening ${running.url}\n`);
