/**
 * The bench's agent, in a process of its own as in a deployment: registered on REDIS_URL as
 * `bench-agent`. It notes when each run arrived (epoch ms, by task id) and talks to the bench over
 * the IPC channel only before and after a measured phase: `{expect: ids}` asks to be told
 * `{received: true}` once all of them have arrived, `{times: ids}` is answered `{times: [ms | null]}`.
 * Nothing is written per run, so the bench's own process (where the scheduler runs) spends nothing
 * on bookkeeping while it is measured.
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

const send = (message: unknown): void => void process.send!(message);
const received = new Map<string, number>();
let waiting = new Set<string>();

process.on("message", (message: { expect?: string[]; times?: string[] }) => {
  if (message.expect !== undefined) {
    waiting = new Set(message.expect.filter((id) => !received.has(id)));
    if (waiting.size === 0) send({ received: true });
  } else if (message.times !== undefined) {
    send({ times: message.times.map((id) => received.get(id) ?? null) });
  }
});

const running = await defineAgent<{}, {}>(spec, {}).serve({
  handlers: {},
  port: 0,
  log: () => undefined,
  scheduled: ({ task_id }) => {
    received.set(task_id, Date.now());
    if (waiting.delete(task_id) && waiting.size === 0) send({ received: true });
    return "ok";
  },
});
send({ listening: running.url });
