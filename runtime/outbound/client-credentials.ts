import { inspect } from "node:util";
import { ManifoldError } from "../errors/index.js";
import { createLogger, type Logger } from "../telemetry/index.js";
import { REDACTED, checkToken, registerSecret } from "../context/index.js";
import type { TokenSource } from "./token.js";

/** The two timer functions the refresher uses, injectable so tests can control time. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  // Unref'd: a pending refresh must not keep a finished process alive.
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface ClientCredentialsOptions {
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Sent only when set. */
  readonly scope?: string;
  /** Wait before retrying after a failure, or when the computed refresh wait is not positive. @defaultValue 30000 */
  readonly retryMs?: number;
  /** Timeout of one token request. @defaultValue 10000 */
  readonly timeoutMs?: number;
  /** @defaultValue real timers, unref'd */
  readonly timers?: Timers;
  /** @defaultValue a JSON logger for `outbound` */
  readonly log?: Logger;
}

export interface ClientCredentialsSource extends TokenSource {
  token(): Promise<string>;
  /** Stops refreshing; later calls to token() fail. */
  stop(): void;
  toJSON(): Record<string, unknown>;
}

/** Refresh at this share of `expires_in`, leaving a fifth of the lifetime for the request and clock skew. */
const REFRESH_AT = 0.8;

interface Grant {
  readonly token: string;
  readonly expiresIn: number;
}

/**
 * The OAuth 2.0 client-credentials grant: POSTs `grant_type, client_id, client_secret, scope` as a
 * form to `tokenUrl`, uses `access_token` and `expires_in`, refreshes at 80 % of `expires_in`, and
 * retries after `retryMs` on failure or when the computed wait is not positive. The first token is
 * fetched on the first call; until a refresh succeeds the previous token stays in use.
 */
export function createClientCredentialsSource(options: ClientCredentialsOptions): ClientCredentialsSource {
  const { tokenUrl, clientId, clientSecret, scope, retryMs = 30_000, timeoutMs = 10_000, timers = realTimers } = options;
  const log = options.log ?? createLogger({ component: "outbound" });
  const url = new URL(tokenUrl);
  const where = `${url.protocol}//${url.host}${url.pathname}`;
  registerSecret(clientSecret);

  let current: string | undefined;
  let inFlight: Promise<void> | undefined;
  let timer: unknown;
  let lastFailure: ManifoldError | undefined;
  let stopped = false;

  const schedule = (ms: number): void => {
    if (stopped) return;
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = timers.setTimeout(() => {
      timer = undefined;
      void refresh();
    }, ms);
  };

  const request = async (): Promise<Grant> => {
    const form = new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret });
    if (scope !== undefined) form.set("scope", scope);
    let response: Response;
    try {
      response = await fetch(url, { method: "POST", body: form, signal: AbortSignal.timeout(timeoutMs), headers: { accept: "application/json" } });
    } catch (error) {
      throw new ManifoldError("UNAVAILABLE", `token request to ${where} failed: the endpoint could not be reached`, { cause: error });
    }
    // The body is never quoted: it may hold a token or echo the secret.
    const body = (await response.json().catch(() => undefined)) as { access_token?: unknown; expires_in?: unknown } | undefined;
    if (!response.ok) throw new ManifoldError("UNAVAILABLE", `token request to ${where} answered ${response.status}`);
    if (typeof body?.access_token !== "string") throw new ManifoldError("UNAVAILABLE", `token response from ${where} has no access_token`);
    const token = checkToken(body.access_token, `access_token from ${where}`);
    return { token, expiresIn: Number(body.expires_in) };
  };

  const refresh = (): Promise<void> => {
    inFlight ??= request()
      .then(
        ({ token, expiresIn }) => {
          registerSecret(token);
          current = token;
          lastFailure = undefined;
          const wait = expiresIn * REFRESH_AT * 1000;
          schedule(Number.isFinite(wait) && wait > 0 ? wait : retryMs);
        },
        (error: unknown) => {
          lastFailure = error instanceof ManifoldError ? error : new ManifoldError("UNAVAILABLE", `token request to ${where} failed`, { cause: error });
          log.warn(`${lastFailure.message}; retrying in ${retryMs} ms`);
          schedule(retryMs);
        },
      )
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  const source: ClientCredentialsSource = {
    async token() {
      if (stopped) throw new ManifoldError("UNAVAILABLE", `token source for ${where} is stopped`);
      if (current !== undefined) return current;
      // The first call starts the first request; after a failure, calls wait for the scheduled retry.
      if (inFlight === undefined && lastFailure === undefined) void refresh();
      if (inFlight !== undefined) await inFlight;
      if (current !== undefined) return current;
      throw lastFailure ?? new ManifoldError("UNAVAILABLE", `no token from ${where} yet`);
    },
    stop() {
      stopped = true;
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = undefined;
    },
    toJSON: () => ({ tokenUrl: where, clientId, clientSecret: REDACTED, scope, token: current === undefined ? undefined : REDACTED }),
  };
  Object.defineProperty(source, inspect.custom, { value: () => source.toJSON() });
  return source;
}
