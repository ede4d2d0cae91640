/**
 * What `manifold` prints without judging anything: its version and its help. CommonJS (no imports) so the bin
 * entry (manifold.cts) answers `--help` and `--version` before node starts its ES module loader, which costs
 * more than everything else those answers do; cli.ts prints the same text on every other path.
 */

/** runtime/manifest/version.ts's MANIFOLD_VERSION (ES, so out of reach here); test/generator/cli-entry.test.ts keeps them equal. */
const VERSION = "0.1.0";

const HELP = `manifold v${VERSION}: typed HTTP tools and agents from YAML manifests

Usage:
  manifold gen [--manifests DIR] [--out DIR] [--check] [--deploy] [--watch] [--refresh-mcp] [--refresh-a2a] [--format pretty|json|github]
  manifold validate [--manifests DIR] [--format pretty|json|github]
  manifold scheduler
  manifold dashboard
  manifold dead-letters [--replay TASK_ID] [--url URL]
  manifold mcp <name|url> [--token-env NAME]
  manifold init [dir] [--template minimal|agent|full] [--name N] [--yes] [--force]
  manifold import openapi <file|url> [--name N] [--out DIR] [--force]
  manifold --help | --version

Commands:
  gen        validate the manifests and write OpenAPI, JSON Schemas and typed TypeScript to --out
             --check writes nothing: exits 1 and lists stale, missing and extra files if --out differs
             --watch regenerates whenever a manifest changes, until Ctrl-C (exit 0)
             a kind: deployment manifest adds Dockerfiles and Kubernetes manifests (docs/deploy.md)
             --refresh-mcp lists the tools of every kind: mcp server again and rewrites its lock file
             --refresh-a2a fetches the card of every kind: a2a agent again and rewrites its lock file
  validate   print diagnostics only
  scheduler  serve the scheduler tool, its firing loop and the executor (PORT, REDIS_URL,
             MANIFOLD_SCHEDULER_* and MANIFOLD_EXECUTOR_*; without REDIS_URL: in memory, one process)
  dashboard  serve the dashboard: registry, LLM debug, HITL, executions, skills and memory views and
             their JSON API (PORT, REDIS_URL, MANIFOLD_AGENT_NAME, MANIFOLD_VIEWER_MEMORY_DOMAINS, TRACE_UI_URL)
  dead-letters  print the executor's dead letters (one JSON per line; REDIS_URL);
             --replay TASK_ID takes one out and queues its occurrence again
  mcp        bridge a running component's MCP endpoint (/mcp) to stdio, for MCP hosts that launch
             a command; by URL, or by name through the registry (REDIS_URL); token: MANIFOLD_MCP_TOKEN
  init       write a new project (manifests, handlers, a test, CI) into dir and run gen; manifold init --help
  import     an OpenAPI 3.x / Swagger 2.0 service as a tool manifest and a proxy; manifold import --help

Options:
  --manifests DIR   where the *.yaml / *.yml manifests are (default: manifests)
  --out DIR         where generated files go (default: generated); manifold owns this folder
  --format F        diagnostics as pretty (default), json, or github workflow commands

Exit codes: 0 success, 1 errors in manifests or stale output under --check, 2 usage error.
Diagnostic codes: docs/diagnostics.md`;

/** What `manifold <argv>` prints and exits with when argv asks only for the help or the version; otherwise undefined. */
function fixedAnswer(argv: readonly string[]): { readonly out: string; readonly code: number } | undefined {
  // No arguments: the usage, as a usage error.
  if (argv.length === 0) return { out: `${HELP}\n`, code: 2 };
  if (argv.length !== 1) return undefined;
  const [arg] = argv;
  if (arg === "--help" || arg === "-h" || arg === "help") return { out: `${HELP}\n`, code: 0 };
  if (arg === "--version" || arg === "-v") return { out: `${VERSION}\n`, code: 0 };
  return undefined;
}

export = { VERSION, HELP, fixedAnswer };
