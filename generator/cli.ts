/**
 * The `manifold` command (bin.ts runs it). Only node built-ins are imported up front so `--help` answers at once; the
 * loader, the emitters and ts-morph are imported by the command that needs them.
 */
// Straight to the two leaf files, not the manifest barrel: the barrel loads yaml and ajv (~140 files) that
// --help, --version and a usage error never use.
import { MANIFOLD_VERSION } from "../runtime/manifest/version.js";
import { closest } from "../runtime/manifest/dataflow/suggest.js";
import { parseArgs } from "node:util";
// The help text lives in CommonJS so the bin entry (manifold.cts) can print it without the ES module loader.
import cliText from "./cli-text.cjs";

const { HELP } = cliText;

/** `manifold <command> --help`: what the command does and the options it takes. */
const COMMAND_HELP: Readonly<Record<string, string>> = {
  gen: `Usage: manifold gen [--manifests DIR] [--out DIR] [--check] [--deploy] [--watch] [--refresh-mcp] [--refresh-a2a] [--format pretty|json|github]

Validates the manifests, then writes OpenAPI documents, JSON Schemas and typed TypeScript to --out,
only the files whose bytes changed, and removes (and names) the files it no longer produces. When the
manifests hold a \`kind: deployment\` manifest it also writes <name>/deploy/ (Dockerfile, Deployment,
Service, ConfigMap) for every component and the network's kustomization.yaml (docs/deploy.md).
A \`kind: mcp\` manifest without its lock file (<name>.mcp-lock.json beside it) has the server's
tools fetched once and written there; with the lock, gen never contacts the server. A \`kind: a2a\`
manifest likewise has its agent card fetched once into <name>.a2a-lock.json.

  --manifests DIR   where the *.yaml / *.yml manifests are (default: manifests)
  --out DIR         where generated files go (default: generated); manifold owns this folder
  --check           write nothing: exit 1 and list stale, missing and extra files if --out differs
  --deploy          require the deploy output: exit 2 when there is no deployment manifest
  --watch           after the first gen, regenerate on every change to the manifests (printing the
                    diagnostics or the summary each time; errors do not stop it) until Ctrl-C, then exit 0
  --format F        diagnostics as pretty (default), json (stdout holds only the JSON array; one per
                    run under --watch), or github
  --refresh-mcp     list the tools of every kind: mcp server again and rewrite the lock files; with
                    --check, write nothing and exit 1 when the live tools differ from a lock file
  --refresh-a2a     fetch the agent card of every kind: a2a agent again and rewrite the lock files;
                    with --check, write nothing and exit 1 when a live card differs from a lock file

Exit codes: 0 success, 1 errors in manifests or stale output under --check, 2 usage error.`,
  validate: `Usage: manifold validate [--manifests DIR] [--format pretty|json|github]

Prints the manifests' diagnostics and writes nothing. --format json prints [] when they are clean.

Exit codes: 0 valid, 1 errors in manifests, 2 usage error.`,
  scheduler: `Usage: manifold scheduler

Serves the scheduler tool, its firing loop and the executor. Settings come from the environment:
PORT, REDIS_URL (without it: in memory, one process), MANIFOLD_SCHEDULER_TICK_INTERVAL,
MANIFOLD_SCHEDULER_LOCK_TTL and MANIFOLD_EXECUTOR_* (WORKER_COUNT, MAX_RETRIES, RETRY_BASE_DELAY,
RETRY_MAX_DELAY, DISPATCH_TIMEOUT).`,
  dashboard: `Usage: manifold dashboard

Serves the dashboard (the registry viewer) on PORT (default 8090): the Registry, LLM Debug, HITL
Interrupted, Execution DAG, Skills and Memory views, an API browser, and their JSON API
(GET /api/services, GET /swagger-urls.json, POST /api/hitl/command, …). It reads what the network
writes, from the store the network uses: REDIS_URL or MANIFOLD_REDIS_* (without one it sees only
its own process). MANIFOLD_LLM_DEBUG_ENABLED and MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED turn on
the views of those records; MANIFOLD_AGENT_NAME scopes the HITL view and its Approve/Reject to one
agent's checkpoints; MANIFOLD_VIEWER_MEMORY_DOMAINS lists the agent memory domains of the Memory
view (the agents' MANIFOLD_AGENT_DOMAIN; default: the registered agents' names); TRACE_UI_URL adds
a link to a trace viewer; MANIFOLD_DASHBOARD_POLL_INTERVAL (default 2s) sets how often a view
refreshes.`,
  "dead-letters": `Usage: manifold dead-letters [--replay TASK_ID] [--url URL]

Prints the scheduled executor's dead letters from Redis (REDIS_URL, MANIFOLD_REDIS_NAMESPACE), one
JSON entry per line. --replay TASK_ID takes that entry out and queues its occurrence again.
Without Redis the dead letters live in the scheduler's process: they are asked of the scheduler at
--url (default http://127.0.0.1:8099, where npm start and manifold scheduler serve it).
Exit codes: 0 done, 1 no dead letter for that task, 2 usage error, 3 no Redis and no scheduler answered.`,
  mcp: `Usage: manifold mcp <name|url> [--token-env NAME]

Bridges a running component's MCP server (Streamable HTTP at /mcp; the component is served with
mcp: true or MANIFOLD_MCP_ENABLED=true) to stdio, for MCP hosts that launch a command: JSON-RPC
messages, one per line, on stdin and stdout, relayed both ways as they are. Log lines go to stderr.

  <url>             http://host:port (/mcp is added) or the endpoint's full URL ending in /mcp
  <name>            a component name, looked up in the registry of the network's store (REDIS_URL
                    or MANIFOLD_REDIS_*; the embedded store is per process, so by name needs Redis)
  --token-env NAME  the variable holding the bearer token (default: MANIFOLD_MCP_TOKEN); the token
                    is sent as Authorization: Bearer and never printed

A session the component forgot (expired, evicted, or restarted) is opened again on the next message.
Exit codes: 0 stdin closed (or SIGTERM/SIGINT), 1 the component went away, refused the token at
initialize or serves no MCP, 2 usage error (no target, a name not registered, an unset --token-env
variable).`,
};

const OPTIONS = [
  "--manifests",
  "--out",
  "--check",
  "--deploy",
  "--watch",
  "--refresh-mcp",
  "--refresh-a2a",
  "--format",
  "--replay",
  "--token-env",
  "--url",
  "--help",
  "--version",
];
const COMMANDS = ["gen", "validate", "scheduler", "dashboard", "dead-letters", "mcp", "init", "help"];

/** ` (did you mean --check?)` when one known name is close enough to be the intended one (the manifests' own rule). */
function suggestion(given: string, known: readonly string[]): string {
  const best = closest(given, known);
  return best === undefined ? "" : ` (did you mean ${best}?)`;
}

export type { CliIo, Format } from "./cli-io.js";
import type { CliIo, Format } from "./cli-io.js";

class UsageError extends Error {}

function parse(argv: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      manifests: { type: "string", default: "manifests" },
      out: { type: "string", default: "generated" },
      check: { type: "boolean", default: false },
      deploy: { type: "boolean", default: false },
      watch: { type: "boolean", default: false },
      "refresh-mcp": { type: "boolean", default: false },
      "refresh-a2a": { type: "boolean", default: false },
      format: { type: "string", default: "pretty" },
      replay: { type: "string" },
      "token-env": { type: "string" },
      url: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
      version: { type: "boolean", short: "v", default: false },
    },
  });
  const format = values.format;
  if (format !== "pretty" && format !== "json" && format !== "github") {
    throw new UsageError(`--format must be pretty, json or github, not ${JSON.stringify(format)}`);
  }
  return { ...values, format: format as Format, positionals };
}

/** node's parseArgs explains `--` escaping at length; a user who mistyped a flag needs its name. */
function usageMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /^Unknown option '([^']*)'/.exec(message);
  if (unknown === null) return message;
  const flag = unknown[1]!.split("=")[0]!;
  return `unknown option ${unknown[1]}${suggestion(flag, OPTIONS)}`;
}

/** The message for an option given with a command it does not go with, or undefined. */
function misplacedOption(command: string, args: ReturnType<typeof parse>): string | undefined {
  if (command === "validate" && args.check) return "--check goes with gen, not validate";
  if (args.deploy && command !== "gen") return "--deploy goes with gen";
  if (args.watch && command !== "gen") return "--watch goes with gen";
  if (args["refresh-mcp"] && command !== "gen") return "--refresh-mcp goes with gen";
  // A watch regenerates on every save; contacting every MCP server each time is not what it is for.
  if (args.watch && args["refresh-mcp"]) return "--watch and --refresh-mcp do not go together";
  if (args["refresh-a2a"] && command !== "gen") return "--refresh-a2a goes with gen";
  if (args.watch && args["refresh-a2a"]) return "--watch and --refresh-a2a do not go together";
  // --check writes nothing and answers once, for CI; there is nothing for a watch to keep up to date.
  if (args.watch && args.check) return "--watch and --check do not go together";
  if (args.replay !== undefined && command !== "dead-letters") return "--replay goes with dead-letters";
  if (args["token-env"] !== undefined && command !== "mcp") return "--token-env goes with mcp";
  if (args.url !== undefined && command !== "dead-letters") return "--url goes with dead-letters";
  return undefined;
}

/** The commands that run a service or act on a store: loaded on use, a bad setting a message with no stack. */
async function runService(command: "scheduler" | "dashboard" | "dead-letters", replay: string | undefined, io: CliIo, url?: string): Promise<number> {
  try {
    if (command === "dead-letters") return await (await import("./dead-letters-command.js")).runDeadLetters(replay, io, url);
    if (command === "dashboard") {
      const { serveDashboard } = await import("../runtime/dashboard/index.js");
      const running = await serveDashboard();
      io.out(`dashboard listening on ${running.url}\n`);
      return 0;
    }
    const { serveScheduler } = await import("../runtime/scheduling/index.js");
    const running = await serveScheduler();
    io.out(`scheduler listening on ${running.url}\n`);
    return 0;
  } catch (error) {
    // A bad setting (a RangeError naming the variable) or an unreachable store: a message, no stack.
    io.err(`manifold: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof RangeError ? 2 : 1;
  }
}

/** Runs one CLI invocation and returns its exit code; never throws for bad input. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  // init has options of its own (--template, --name, --yes, --force): its module parses them.
  if (argv[0] === "init") return (await import("./init/index.js")).runInit(argv.slice(1), io);
  // import has options of its own (--name, --force; --out defaults to manifests): its module parses them.
  if (argv[0] === "import") return (await import("./import-openapi/index.js")).runImport(argv.slice(1), io);
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (error) {
    io.err(`manifold: ${usageMessage(error)}\nRun manifold --help for usage.\n`);
    return 2;
  }
  if (args.version) {
    io.out(`${MANIFOLD_VERSION}\n`);
    return 0;
  }
  const [command, ...rest] = args.positionals;
  if (args.help && command !== undefined && COMMAND_HELP[command] !== undefined) {
    io.out(`${COMMAND_HELP[command]}\n`);
    return 0;
  }
  if (command === "help" && rest[0] !== undefined && COMMAND_HELP[rest[0]] !== undefined) {
    io.out(`${COMMAND_HELP[rest[0]]}\n`);
    return 0;
  }
  if (args.help || command === undefined || command === "help") {
    io.out(`${HELP}\n`);
    return command === undefined && !args.help ? 2 : 0;
  }
  // mcp takes its target; every other command none.
  if (rest.length > (command === "mcp" ? 1 : 0)) {
    io.err(`manifold: unexpected argument ${JSON.stringify(rest[command === "mcp" ? 1 : 0])}\nRun manifold --help for usage.\n`);
    return 2;
  }
  const misplaced = misplacedOption(command, args);
  if (misplaced !== undefined) {
    io.err(`manifold: ${misplaced}\n`);
    return 2;
  }
  if (command === "scheduler" || command === "dashboard" || command === "dead-letters") return runService(command, args.replay, io, args.url);
  if (command === "mcp") return (await import("./mcp-bridge.js")).runMcpBridge({ target: rest[0], tokenEnv: args["token-env"], io });
  if (command !== "gen" && command !== "validate") {
    io.err(`manifold: unknown command ${JSON.stringify(command)}${suggestion(command, COMMANDS)}\nRun manifold --help for usage.\n`);
    return 2;
  }
  const { runCommand } = await import("./commands.js");
  const options = {
    manifestsDir: args.manifests,
    outDir: args.out,
    check: args.check,
    deploy: args.deploy,
    format: args.format,
    refreshMcp: args["refresh-mcp"],
    refreshA2a: args["refresh-a2a"],
  };
  if (args.watch) {
    const { watchUntilInterrupted } = await import("./watch.js");
    return watchUntilInterrupted({ manifestsDir: args.manifests, io, regenerate: () => runCommand("gen", options, io) });
  }
  return runCommand(command, options, io);
}
