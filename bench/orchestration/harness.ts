/**
 * What the orchestration benchmarks share: the bench tool in its own process, and the hand-made side
 * of each comparison, a JSON POST over a node:http keep-alive agent (the cheapest way to make the
 * same call the executor makes).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { Agent, request } from "node:http";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { withTimeout } from "../../test/runtime/support.js";
import { TS_NODE_ARGS } from "../../test/support/ts-node-args.js";

/** Starts `tools.ts` (the bench tool) as a child process, killed when this one exits; resolves with its URL. */
export async function startBenchTool(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [...TS_NODE_ARGS, fileURLToPath(new URL("tools.ts", import.meta.url))], {
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  process.on("exit", () => child.kill("SIGKILL"));
  const url = await withTimeout(
    new Promise<string>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`tool exited with ${code} before listening`)));
      createInterface({ input: child.stdout! }).once("line", (line) => resolve((JSON.parse(line) as { url: string }).url));
    }),
    30_000,
    "tool start",
  );
  return { url, child };
}

export interface RawPost {
  (body: unknown): Promise<{ n: number }>;
  close(): void;
}

export function rawPost(endpoint: URL, maxSockets = 64): RawPost {
  const agent = new Agent({ keepAlive: true, maxSockets });
  const post = (body: unknown): Promise<{ n: number }> =>
    new Promise((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = request(
        endpoint,
        { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) } },
        (res) => {
          let data = "";
          res.setEncoding("utf8");
          res.on("data", (part: string) => (data += part));
          res.on("end", () => (res.statusCode === 200 ? resolve(JSON.parse(data) as { n: number }) : reject(new Error(`status ${res.statusCode}`))));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(text);
    });
  return Object.assign(post, { close: () => agent.destroy() });
}
