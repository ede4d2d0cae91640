/**
 * A service's OpenAPI document, fetched by the dashboard for its API browser: the browser loads it
 * from the dashboard's origin, so no component has to be reachable from the user's machine for the
 * document to show.
 */
import { baseUrlOf, type RegistryEntry } from "../discovery/index.js";
import { ManifoldError } from "../errors/index.js";

export interface DocumentFetchOptions {
  /** @defaultValue 5000 */
  readonly timeoutMs?: number;
  /** A larger document is refused rather than held in memory. @defaultValue 4 MiB */
  readonly maxBytes?: number;
}

async function readCapped(response: Response, maxBytes: number, what: string): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new ManifoldError("INVALID_RESPONSE", `${what} is larger than ${maxBytes} bytes`);
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new ManifoldError("INVALID_RESPONSE", `${what} is larger than ${maxBytes} bytes`);
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString("utf8");
}

/**
 * The first replica (in the order given) that answers its document; the document's own `servers`
 * entry still names the component, so "Try it out" calls it directly (a component answers the dashboard's origin only when its MANIFOLD_CORS_ORIGINS lists it).
 */
export async function fetchOpenApiDocument(
  replicas: readonly RegistryEntry[],
  { timeoutMs = 5000, maxBytes = 4 * 1024 * 1024 }: DocumentFetchOptions = {},
): Promise<string> {
  let failure: ManifoldError | undefined;
  for (const entry of replicas) {
    const what = `${entry.name}'s OpenAPI document`;
    try {
      const response = await fetch(`${baseUrlOf(entry)}/openapi.json`, { redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
      const text = await readCapped(response, maxBytes, what);
      if (!response.ok) throw new ManifoldError("INVALID_RESPONSE", `${what} answered ${response.status}`);
      // Parsed only to refuse what is not JSON; the text is passed on as it came.
      JSON.parse(text);
      return text;
    } catch (error) {
      failure =
        error instanceof ManifoldError
          ? error
          : error instanceof SyntaxError
            ? new ManifoldError("INVALID_RESPONSE", `${what} is not JSON`)
            : error instanceof DOMException && error.name === "TimeoutError"
              ? new ManifoldError("TIMEOUT", `${what} did not arrive within ${timeoutMs} ms`)
              : new ManifoldError("NETWORK_ERROR", `${entry.name} could not be reached`);
    }
  }
  throw failure ?? new ManifoldError("NOT_FOUND", "no replica of that service serves an OpenAPI document");
}
