/**
 * Node arguments that run a TypeScript file from source in a child process, from any cwd: tsx is
 * resolved here, once, to an absolute URL (a bare `--import tsx` resolves against the child's cwd),
 * and `--conditions=source` makes `agent-manifold/...` self-imports load the TypeScript sources.
 */
export const TS_NODE_ARGS: readonly string[] = ["--import", import.meta.resolve("tsx"), "--conditions=source"];
