/**
 * A real travel network for the browser suite: redis-server, the four travel tools and the travel
 * agent as processes (REDIS_URL set, OpenAPI on, HITL and both debug stores on), a scripted
 * OpenAI-compatible model in this process, and `manifold dashboard` as a process of its own.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { withTimeout } from "../runtime/support.js";
import { startScriptedLlm, type ScriptedEntry, type ScriptedLlm } from "../support/scripted-llm.js";
import { COMPACTION_PROMPT, INCREMENTAL_PROMPT } from "../../runtime/memory/episodic/compaction.js";
import { REFLECTION_PROMPT } from "../../runtime/memory/episodic/reflection.js";
import { SUMMARY_PROMPT } from "../../runtime/memory/episodic/summarise.js";
import { EXTRACTION_JSON_NAME, summaryMessages } from "../../runtime/memory/user/prompts.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";
import { adopt } from "../support/processes.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

export const TRAVEL = ["geocoding-service", "weather-service", "currency-service", "country-info-service", "travel-agent"] as const;

/** A background model call of memory (after a turn or a run, not in the request's order): which one it is. */
export type BackgroundCall = "extraction" | "profile" | "event_summary" | "compaction" | "reflection";

const PROMPTS: readonly (readonly [string, BackgroundCall])[] = [
  [summaryMessages([])[0]!.content, "profile"],
  [SUMMARY_PROMPT, "event_summary"],
  [COMPACTION_PROMPT, "compaction"],
  [INCREMENTAL_PROMPT, "compaction"],
  [REFLECTION_PROMPT, "reflection"],
];

/** Which background call a model request is, by its response_format name or its system prompt; undefined for the request's own calls. */
export function backgroundCall(body: any): BackgroundCall | undefined {
  if (body?.response_format?.json_schema?.name === EXTRACTION_JSON_NAME) return "extraction";
  const system = body?.messages?.[0]?.role === "system" ? body.messages[0].content : undefined;
  return PROMPTS.find(([prompt]) => prompt === system)?.[1];
}

/** What a background call is answered with unless a test says otherwise: nothing to remember, short summaries. */
const BACKGROUND_DEFAULTS: Readonly<Record<BackgroundCall, (body: any) => ScriptedEntry>> = {
  extraction: () => ({ text: JSON.stringify({ facts: [] }) }),
  profile: () => ({ text: "A traveller." }),
  event_summary: () => ({ text: "A run of the travel agent." }),
  compaction: () => ({ text: "The travel agent answered travel questions." }),
  reflection: () => ({ text: "Nothing recurring yet." }),
};

export interface Network {
  readonly redis: RedisServer;
  /**
   * The scripted model. `reply` queues the answers of the requests' own calls, in order; memory's
   * background calls (extraction, summaries, compaction, reflection) come at their own time, so they
   * are answered by kind (`answerBackground`) and never take a queued answer.
   */
  readonly llm: ScriptedLlm;
  /** Answers this kind of background call with `answer` from now on (the default otherwise). */
  answerBackground(kind: BackgroundCall, answer: (body: any) => ScriptedEntry): void;
  /** Base URL per travel component. */
  readonly urls: Readonly<Record<(typeof TRAVEL)[number], string>>;
  readonly dashboard: string;
  /** Everything the processes wrote to stderr, for a failing test's message. */
  logs(): string;
  close(): Promise<void>;
}

interface Started {
  readonly child: ChildProcess;
  readonly url: string;
}

const children = new Set<ChildProcess>();
let stderr = "";

/** Starts `args` under tsx and resolves with the URL it announces (a JSON `listening` event, or the CLI's line). */
function start(args: readonly string[], env: Record<string, string>, what: string): Promise<Started> {
  const argv = [...TS_NODE_ARGS, ...args];
  const child = spawn(process.execPath, argv, {
    cwd: root,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  // Its output goes into the suite's failure report (test/support/processes.ts).
  adopt(what, [process.execPath, ...argv], child);
  child.once("exit", () => children.delete(child));
  child.stderr!.setEncoding("utf8").on("data", (part: string) => {
    // Bounded: a chatty process must not grow the suite's memory without end.
    stderr = (stderr + part).slice(-200_000);
  });
  return withTimeout(
    new Promise<Started>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on("line", (line) => {
        const announced = /"event":"listening","url":"([^"]+)"/.exec(line) ?? /^dashboard listening on (\S+)$/.exec(line);
        if (announced !== null) resolve({ child, url: announced[1]! });
      });
      child.once("exit", (code) => reject(new Error(`${what} exited (${code}) before listening:\n${stderr.slice(-4000)}`)));
    }),
    60_000,
    `${what} listening`,
  );
}

export async function startNetwork(): Promise<Network> {
  const background = { ...BACKGROUND_DEFAULTS };
  const script = (body: any): ScriptedEntry | undefined => {
    const kind = backgroundCall(body);
    return kind === undefined ? undefined : background[kind](body);
  };
  const [redis, llm] = await Promise.all([startRedisServer(), startScriptedLlm(script as (body: any) => ScriptedEntry)]);
  const env = {
    REDIS_URL: redis.url,
    MANIFOLD_ENABLE_OPENAPI: "true",
    MANIFOLD_HITL_ENABLED: "true",
    MANIFOLD_LLM_DEBUG_ENABLED: "true",
    MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED: "true",
    MANIFOLD_LLM_BASE_URL: llm.baseUrl,
    MANIFOLD_LLM_API_KEY: "sk-dashboard-suite",
    MANIFOLD_LLM_MAX_RETRIES: "0",
    // Who may pin skills through the agent's admin API (the travel agent's memory is on by its manifest).
    MANIFOLD_SKILL_ADMINS: "ops@example.com",
    OPENAI_API_KEY: "",
    DEV_MODE: "false",
  };
  try {
    // The dashboard first: its origin is the one the components allow, so the API browser's "Try it
    // out" (a cross-origin call from the dashboard's page to the component) works as under `npm start`.
    const dashboard = await start(["generator/bin.ts", "dashboard"], { ...env, MANIFOLD_DASHBOARD_POLL_INTERVAL: "500ms" }, "manifold dashboard");
    const components = {
      ...env,
      MANIFOLD_CORS_ORIGINS: new URL(dashboard.url).origin,
      // The seed names its user with X-User-ID, as a trusted gateway would (issue 32 M3); the dashboard
      // calls the agents with no token, so the anonymous caller is the approver here. In production the
      // dashboard has a token (MANIFOLD_OAUTH_TOKEN) and its subject is listed instead.
      MANIFOLD_TRUST_IDENTITY_HEADERS: "true",
      MANIFOLD_HITL_APPROVERS: "anonymous",
    };
    const started = await Promise.all(TRAVEL.map((name) => start(["test/dashboard/fixtures/travel.ts", name], components, name)));
    const urls = Object.fromEntries(TRAVEL.map((name, i) => [name, started[i]!.url])) as Network["urls"];
    return {
      redis,
      llm,
      answerBackground: (kind, answer) => void (background[kind] = answer),
      urls,
      dashboard: dashboard.url,
      logs: () => stderr,
      close: async () => {
        for (const child of children) child.kill("SIGKILL");
        await llm.close();
        await redis.close();
      },
    };
  } catch (error) {
    for (const child of children) child.kill("SIGKILL");
    await llm.close();
    await redis.close();
    throw error;
  }
}

/** For `after` hooks and crashes: no process outlives the suite. */
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});
