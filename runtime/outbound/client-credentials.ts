import { inspect } from "node:util";
import { ManifoldError } from "../errors/index.js";
import { createLogger, type Logger } from "../telemetry/index.js";
import { REDACTED, checkToken, registerSecret } from "../context/index.js";
import { systemClock, type Clock, type ClockTimer } from "../util/index.js";
import type { TokenSource } from "./token.js";

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
  /** What the refresh and retry waits are measured on. @defaultValue systemClock (its timers are unref'd: a pending refresh does not keep a finished process alive) */
  readonly clock?: Clock;
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

/** One source's settings and where it stands, which the functions below read and change. */
interface Refresher {
  readonly url: URL;
  /** The endpoint without query or user info, for messages. */
  readonly where: string;
  readonly form: URLSearchParams;
  readonly retryMs: number;
  readonly timeoutMs: number;
  readonly clock: Clock;
  readonly log: Logger;
  current: string | undefined;
  inFlight: Promise<void> | undefined;
  timer: ClockTimer | undefined;
  lastFailure: ManifoldError | undefined;
  stopped: boolean;
}

/** One token request; the body is never quoted in an error (it may hold a token or echo the secret). */
async function requestGrant({ url, where, form, timeoutMs }: Refresher): Promise<Grant> {
  let response: Response;
  try {
    response = await fetch(url, { method: "POST", body: form, signal: AbortSignal.timeout(timeoutMs), headers: { accept: "application/json" } });
  } catch (error) {
    throw new ManifoldError("UNAVAILABLE", `token request to ${where} failed: the endpoint could not be reached`, { cause: error });
  }
  const body = (await response.json().catch(() => undefined)) as { access_token?: unknown; expires_in?: unknown } | undefined;
  if (!response.ok) throw new ManifoldError("UNAVAILABLE", `token request to ${where} answered ${response.status}`);
  if (typeof body?.access_token !== "string") throw new ManifoldError("UNAVAILABLE", `token response from ${where} has no access_token`);
  const token = checkToken(body.access_token, `access_token from ${where}`);
  return { token, expiresIn: Number(body.expires_in) };
}

/** When to refresh a grant that lives `expiresIn` seconds: at 80 %, or after `retryMs` when that is not a positive wait. */
export function refreshWaitMs(expiresIn: number, retryMs: number): number {
  const wait = expiresIn * REFRESH_AT * 1000;
  return Number.isFinite(wait) && wait > 0 ? wait : retryMs;
}

function schedule(state: Refresher, ms: number): void {
  if (state.stopped) return;
  state.clock.clearTimeout(state.timer);
  state.timer = state.clock.setTimeout(() => {
    state.timer = undefined;
    void refresh(state);
  }, ms);
}

/** Requests a token (one request at a time) and schedules the next refresh, or the retry after a failure. */
function refresh(state: Refresher): Promise<void> {
  state.inFlight ??= requestGrant(state)
    .then(
      ({ token, expiresIn }) => {
        registerSecret(token);
        state.current = token;
        state.lastFailure = undefined;
        schedule(state, refreshWaitMs(expiresIn, state.retryMs));
      },
      (error: unknown) => {
        const failure = error instanceof ManifoldError ? error : new ManifoldError("UNAVAILABLE", `token request to ${state.where} failed`, { cause: error });
        state.lastFailure = failure;
        state.log.warn(`${failure.message}; retrying in ${state.retryMs} ms`);
        schedule(state, state.retryMs);
      },
    )
    .finally(() => {
      state.inFlight = undefined;
    });
  return state.inFlight;
}

async function currentToken(state: Refresher): Promise<string> {
  if (state.stopped) throw new ManifoldError("UNAVAILABLE", `token source for ${state.where} is stopped`);
  if (state.current !== undefined) return state.current;
  // The first call starts the first request; after a failure, calls wait for the scheduled retry.
  if (state.inFlight === undefined && state.lastFailure === undefined) void refresh(state);
  if (state.inFlight !== undefined) await state.inFlight;
  if (state.current !== undefined) return state.current;
  throw state.lastFailure ?? new ManifoldError("UNAVAILABLE", `no token from ${state.where} yet`);
}

/**
 * The OAuth 2.0 client-credentials grant: POSTs `grant_type, client_id, client_secret, scope` as a
 * form to `tokenUrl`, uses `access_token` and `expires_in`, refreshes at 80 % of `expires_in`, and
 * retries after `retryMs` on failure or when the computed wait is not positive. The first token is
 * fetched on the first call; until a refresh succeeds the previous token stays in use.
 */
export function createClientCredentialsSource(options: ClientCredentialsOptions): ClientCredentialsSource {
  const { tokenUrl, clientId, clientSecret, scope, retryMs = 30_000, timeoutMs = 10_000, clock = systemClock } = options;
  const url = new URL(tokenUrl);
  const where = `${url.protocol}//${url.host}${url.pathname}`;
  registerSecret(clientSecret);
  const form = new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret });
  if (scope !== undefined) form.set("scope", scope);
  const state: Refresher = {
    url,
    where,
    form,
    retryMs,
    timeoutMs,
    clock,
    log: options.log ?? createLogger({ component: "outbound" }),
    current: undefined,
    inFlight: undefined,
    timer: undefined,
    lastFailure: undefined,
    stopped: false,
  };
  const source: ClientCredentialsSource = {
    token: () => currentToken(state),
    stop() {
      state.stopped = true;
      clock.clearTimeout(state.timer);
      state.timer = undefined;
    },
    toJSON: () => ({ tokenUrl: where, clientId, clientSecret: REDACTED, scope, token: state.current === undefined ? undefined : REDACTED }),
  };
  Object.defineProperty(source, inspect.custom, { value: () => source.toJSON() });
  return source;
}
