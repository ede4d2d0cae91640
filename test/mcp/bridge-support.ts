/**
 * The stdio bridge suites' helpers: `manifold mcp …` launched from source as a host launches it, either
 * by the official SDK's `Client` over `StdioClientTransport` (what a host is), or raw, for what a
 * client library hides (the exit code, the lines on stderr, a message answered while the bridge ends).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";
import { eventually, within } from "../support/wait.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** `node <tsx> generator/bin.ts mcp …args`: the CLI from source. */
export const bridgeArgs = (args: readonly string[]): string[] => [...TS_NODE_ARGS, "generator/bin.ts", "mcp", ...args];

/** The child's environment: only what the test gives, over PATH and HOME (no REDIS_URL or token leaking in). */
function childEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const { PATH = "", HOME = "" } = process.env;
  return { PATH, HOME, NO_COLOR: "1", ...env };
}

export interface HostSide {
  readonly client: Client;
  /** What the bridge printed on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** An SDK client that launched `manifold mcp …args` and initialised through it. */
export async function launchBridge(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<HostSide> {
  const transport = new StdioClientTransport({ command: process.execPath, args: bridgeArgs(args), cwd: ROOT, env: childEnv(env), stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "bridge-test-host", version: "1.0.0" });
  const side: HostSide = { client, stderr: () => stderr, close: () => client.close().catch(() => undefined) };
  try {
    await within("the host to initialise through manifold mcp", client.connect(transport));
  } catch (error) {
    await side.close();
    throw new Error(`${error instanceof Error ? error.message : String(error)}; the bridge's stderr: ${stderr}`);
  }
  return side;
}

export interface RawBridge {
  /** Writes one JSON-RPC message as a line on the bridge's stdin. */
  send(message: unknown): void;
  /** Waits for the message on stdout answering request `id`. */
  answer(id: number | string): Promise<Record<string, unknown>>;
  /** Ends stdin, as a host closing. */
  endInput(): void;
  /** The exit code, once the bridge has exited (a hang guard fails the wait). */
  exit(): Promise<number | null>;
  /** SIGKILL, for a suite's clean-up. */
  kill(): void;
  stdout(): string;
  stderr(): string;
}

/** `manifold mcp …args` with its pipes in the test's hands. */
export function spawnBridge(args: readonly string[], env: Readonly<Record<string, string>> = {}): RawBridge {
  const child = spawn(process.execPath, bridgeArgs(args), { cwd: ROOT, env: childEnv(env), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
  // A write after the bridge exited fails with EPIPE: the exit code says what happened.
  child.stdin.on("error", () => undefined);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const messages = (): Record<string, unknown>[] =>
    out
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    send: (message) => void child.stdin.write(`${JSON.stringify(message)}\n`),
    answer: (id) =>
      eventually(`the answer to request ${id} on the bridge's stdout`, () => messages().find((m) => m["id"] === id), { describe: () => `${out}${err}` }),
    endInput: () => void child.stdin.end(),
    exit: () => within("manifold mcp to exit", exited),
    kill: () => void child.kill("SIGKILL"),
    stdout: () => out,
    stderr: () => err,
  };
}

export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw-host", version: "1.0.0" } },
};
export const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
