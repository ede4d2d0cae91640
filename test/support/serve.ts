/**
 * The serve options of an in-process agent in the suites: a free port, no registry, no signal
 * handlers, no log lines, no language model, a short drain, no handlers of its own. A suite spreads
 * them and adds what it is about: `serveAgent(spec, uses, { ...QUIET_AGENT, hitl: … })`.
 */
export const QUIET_AGENT = {
  port: 0,
  handlers: {},
  registry: false,
  handleSignals: false,
  log: (): undefined => undefined,
  drainTimeoutMs: 500,
  llm: false,
} as const;

/** A JSON POST to a served component: `post(path, body)` answers the status and the parsed body. */
export function jsonPoster(baseUrl: string): (path: string, body?: unknown) => Promise<{ status: number; body: any }> {
  return async (path, body = {}) => {
    const response = await fetch(baseUrl + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  };
}
