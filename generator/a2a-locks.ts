/**
 * The lock files of `kind: a2a` manifests (the shared step is remote-locks.ts): the agent card fetched
 * from `card_url` over HTTP, reduced to what gen and the runtime read (runtime/spec/a2a-lock.ts).
 * `--refresh-a2a` fetches every card again; `--check --refresh-a2a` compares it with the lock (MF1706).
 * A token is read from its variable, sent only as `Authorization`, and never written.
 */
import { createDiagnostic, type A2aManifestInfo, type Project } from "../runtime/manifest/index.js";
import { buildA2aLock, formatLockFile, type A2aLock, type A2aLockSkill } from "../runtime/spec/index.js";
import { describeChanges, syncRemoteLocks, type LockOptions, type LockResult } from "./remote-locks.js";

/** A card larger than this is refused: a card of 1000 skills with schemas fits well below. */
export const MAX_CARD_BYTES = 4 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;

/** The URL as messages show it: without user and password. */
function shown(url: string): string {
  const parsed = new URL(url);
  parsed.username = "";
  parsed.password = "";
  return parsed.toString();
}

async function boundedText(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_CARD_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`the card is larger than ${MAX_CARD_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function fetchCard(agent: A2aManifestInfo, env: Readonly<Record<string, string | undefined>>): Promise<{ lock: A2aLock } | { error: string }> {
  const { cardUrl, tokenEnv, timeoutMs = DEFAULT_TIMEOUT_MS } = agent.address;
  const token = tokenEnv === undefined ? undefined : env[tokenEnv];
  if (tokenEnv !== undefined && (token === undefined || token === "")) return { error: `the variable ${tokenEnv} (auth.token_env) is not set` };
  try {
    const response = await fetch(cardUrl, {
      headers: { accept: "application/json", ...(token !== undefined && { authorization: `Bearer ${token}` }) },
      redirect: "error",
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      return { error: `${shown(cardUrl)} answered HTTP ${response.status}` };
    }
    let card: unknown;
    try {
      card = JSON.parse(await boundedText(response));
    } catch (error) {
      return { error: `${shown(cardUrl)}: ${error instanceof SyntaxError ? "the answer is not JSON" : (error as Error).message}` };
    }
    const built = buildA2aLock(card);
    return "lock" in built ? built : { error: `${shown(cardUrl)}: ${built.error}` };
  } catch (error) {
    const why = error instanceof Error && error.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : "the request failed (is the agent running?)";
    return { error: `${shown(cardUrl)}: ${why}` };
  }
}

/** Fetches, compares or writes the lock of every `kind: a2a` manifest of `project`, as the flags say. */
export function syncA2aLocks(project: Project, { root, check, refresh, env = process.env }: LockOptions): Promise<LockResult> {
  return syncRemoteLocks<A2aManifestInfo, A2aLock>(
    project.a2aAgents ?? [],
    {
      fetch: (agent) => fetchCard(agent, env),
      format: formatLockFile,
      unreachable: (agent, error) => createDiagnostic("MF1705", agent.file, agent.at, `cannot read the agent card of \`${agent.name}\`: ${error}`),
      changed: (agent, locked, live) => {
        const skills = Array.isArray(locked["skills"]) ? (locked["skills"] as A2aLockSkill[]) : [];
        const changes = describeChanges(skills, live.skills, (s) => s.id, "the agent's name, description, version or URL changed");
        const message = `the agent card of \`${agent.name}\` differs from ${agent.lockFile} (${changes}); run \`manifold gen --refresh-a2a\` and commit the lock file`;
        return createDiagnostic("MF1706", agent.file, agent.at, message);
      },
    },
    { root, check, refresh },
  );
}
