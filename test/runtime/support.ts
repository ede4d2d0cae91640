/** Shared by the runtime and e2e suites: bounded waits and a raw node:http client on loopback. */
import { createServer, request, type Agent, type IncomingHttpHeaders, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { within } from "../support/wait.js";

/** Every wait in these suites goes through here, so a broken server fails a test instead of hanging it: `within` with its arguments in this order. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return within(what, promise, ms);
}

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** Whether the request went out on a kept-alive socket that an earlier request used. */
  readonly reusedSocket: boolean;
}

/** What two paths serving one request must answer identically: status, body and headers, minus the clock. */
export function comparable(response: RawResponse): unknown {
  const { date: _date, ...headers } = response.headers;
  return { status: response.status, headers, text: response.text };
}

export interface RawRequest {
  readonly method?: string;
  readonly headers?: Record<string, string | number>;
  /** Sent as one piece; for chunked uploads use `chunks`. */
  readonly body?: string | Buffer;
  /** Written one by one without a Content-Length, i.e. `Transfer-Encoding: chunked`. */
  readonly chunks?: readonly Buffer[];
  readonly agent?: Agent;
  readonly timeoutMs?: number;
}

/**
 * A request whose response may arrive before the body is fully written (413, 415): the response is
 * what counts, so a write error after it (the server may drop the upload) does not fail the call.
 */
export function rawRequest(url: string, { method = "GET", headers = {}, body, chunks, agent, timeoutMs = 10_000 }: RawRequest = {}): Promise<RawResponse> {
  const done = new Promise<RawResponse>((resolve, reject) => {
    const req = request(url, { method, headers, agent: agent ?? false }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (part: Buffer) => parts.push(part));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(parts).toString("utf8"),
          reusedSocket: req.reusedSocket,
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    if (chunks !== undefined) {
      void (async () => {
        for (const chunk of chunks) {
          if (req.destroyed) return;
          if (!req.write(chunk)) {
            await new Promise<void>((resume) => {
              const go = (): void => {
                req.off("drain", go);
                req.off("close", go);
                resume();
              };
              req.on("drain", go);
              req.on("close", go);
            });
          }
        }
        req.end();
      })();
    } else {
      req.end(body);
    }
  });
  return withTimeout(done, timeoutMs, `${method} ${url}`);
}

export function json(response: RawResponse): unknown {
  return JSON.parse(response.text) as unknown;
}

/** A throwaway loopback server for unit tests. */
export async function startServer(listener: RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(listener);
  await withTimeout(new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)), 5_000, "listen");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      withTimeout(
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
        5_000,
        "close",
      ),
  };
}
