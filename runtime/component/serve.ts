import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { advertisedAddress } from "../discovery/index.js";
import { createHealthProbe } from "../discovery/index.js";
import { resolveTiming } from "../discovery/index.js";
import { startHeartbeat, type ComponentRegistration, type Heartbeat } from "../discovery/index.js";
import { defaultRegistry, ROLE_KEY, WORKER_ROLE } from "../discovery/index.js";
import { ManifoldError } from "../errors/index.js";
import { initTelemetry, shutdownTelemetry } from "../telemetry/index.js";
import { capabilityWire, DEFAULT_DRAIN_TIMEOUT_MS, plannerMetadata } from "../spec/index.js";
import type { ComponentSpec } from "../spec/index.js";
import type { ComponentExtension, ExtensionStart } from "./extension.js";
import { loadKoaMiddleware } from "./koa-middleware.js";
import { createComponentApp, defaultComponentLog, type AppInternals } from "./app.js";
import { resolveHost, resolvePort } from "./options.js";
import type { ServerState } from "./reply.js";
import type { Log } from "./errors-middleware.js";
import type { CapabilityTypes, ComponentOptions, RunningComponent } from "./types.js";

const SIGNALS = ["SIGTERM", "SIGINT"] as const;

type Shutdown = (cause: string) => Promise<void>;

/**
 * Components that handle signals share one process listener: on SIGTERM/SIGINT all of them drain
 * together and only then does the process exit, so the first to finish cannot cut the others short
 * (`npm start` runs several in one process). The listener exists only while one is registered, so
 * starting and closing many components leaves nothing behind; a second signal gets Node's default.
 */
const signalled = new Set<Shutdown>();

function onProcessSignal(signal: NodeJS.Signals): void {
  for (const name of SIGNALS) process.off(name, onProcessSignal);
  // Telemetry is flushed last, so the spans of the drained requests are exported before the exit.
  void Promise.all([...signalled].map((shutdown) => shutdown(` on ${signal}`)))
    .then(() => shutdownTelemetry())
    .finally(() => process.exit(0));
}

function handleSignalsFor(shutdown: Shutdown): void {
  if (signalled.size === 0) for (const name of SIGNALS) process.on(name, onProcessSignal);
  signalled.add(shutdown);
}

/**
 * A component's place among the signal handlers, taken before its port opens and filled with its
 * shutdown once it has started: a SIGTERM that comes after /health answers but before the extensions
 * have started (a pod stopped while it starts) then waits for the start and drains, instead of meeting
 * Node's default and killing the process. Filled with undefined when the start fails, which gives the
 * seat up; a filled shutdown gives it up when it runs.
 */
function takeSignalSeat(): { readonly seat: Shutdown; fill(shutdown: Shutdown | undefined): void } {
  let resolve!: (shutdown: Shutdown | undefined) => void;
  const filled = new Promise<Shutdown | undefined>((r) => (resolve = r));
  const seat: Shutdown = (cause) => filled.then((shutdown) => shutdown?.(cause));
  handleSignalsFor(seat);
  return {
    seat,
    fill(shutdown) {
      if (shutdown === undefined) releaseSignals(seat);
      resolve(shutdown);
    },
  };
}

function releaseSignals(shutdown: Shutdown): void {
  if (!signalled.delete(shutdown) || signalled.size > 0) return;
  for (const name of SIGNALS) process.off(name, onProcessSignal);
}

/**
 * A port that cannot be taken is a set-up mistake, not a bug: one line saying what to change, and no
 * stack (an unhandled rejection prints `stack`, so it is that same line).
 */
export function listenError(name: string, port: number, host: string, error: NodeJS.ErrnoException): ManifoldError {
  const where = `${host}:${port}`;
  const message =
    error.code === "EADDRINUSE"
      ? `${name} cannot listen on ${where}: the port is in use. Stop what holds it, or choose another: PORT=<n>, \`port: 0\` (a free port), or MANIFOLD_EPHEMERAL_PORTS=true under npm start`
      : error.code === "EACCES"
        ? `${name} cannot listen on ${where}: permission denied (ports below 1024 need privileges). Choose another with PORT=<n> or \`port: 0\``
        : error.code === "EADDRNOTAVAIL"
          ? `${name} cannot listen on ${where}: no such address on this machine. Check HOST or the host option`
          : `${name} cannot listen on ${where}: ${error.code ?? error.message}`;
  const failure = new ManifoldError("UNAVAILABLE", message);
  failure.stack = `ManifoldError: ${message}`;
  return failure;
}

/**
 * A mistake in options or environment found before the port is taken (a bad `REDIS_URL`, a missing
 * handler, a bad TTL): its own message already says what to fix, so it reaches the user as that one
 * line, named after the component, with no stack (an unhandled rejection prints `stack`). Anything
 * else passes through as it is.
 */
export function startupError(name: string, error: unknown): unknown {
  // The same error (callers may check its class), with the one line as its stack.
  if (error instanceof RangeError || error instanceof TypeError) error.stack = `${name} cannot start: ${error.message}`;
  return error;
}

function listen(server: Server, port: number, host: string, name: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException): void => reject(listenError(name, port, host, error));
    server.once("error", failed);
    server.listen(port, host, () => {
      server.off("error", failed);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** A URL a client can dial: wildcard addresses become loopback, IPv6 gets brackets. */
function dialableUrl({ address, port }: AddressInfo): string {
  const host = address === "0.0.0.0" ? "127.0.0.1" : address === "::" ? "::1" : address;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/**
 * Stop accepting, let in-flight requests finish (their responses carry `Connection: close`, idle
 * keep-alive sockets are closed now), and after `drainTimeoutMs` destroy whatever is left, which
 * aborts the signals of handlers still running.
 */
function drain(server: Server, state: ServerState, drainTimeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      // Aborted here rather than when each socket's close event arrives, so that by the time
      // close() resolves every handler that was cut off has seen its signal fire.
      const reason = new ManifoldError("UNAVAILABLE", "server shutting down");
      for (const controller of state.signals) controller.abort(reason);
      server.closeAllConnections();
    }, drainTimeoutMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** In reverse start order, like unwinding; each extension's own stop must not throw. */
async function stopExtensions(extensions: readonly ComponentExtension[], deadlineMs: number): Promise<void> {
  for (const extension of [...extensions].reverse()) await extension.stop?.(deadlineMs);
}

/** The HTTP server with the request timeout applied to the whole request and its headers. */
function createHttpServer(listener: RequestListener, requestTimeoutMs: number): Server {
  if (!Number.isSafeInteger(requestTimeoutMs) || requestTimeoutMs < 100) throw new RangeError("requestTimeoutMs must be a whole number of ms, at least 100");
  // Node checks request timeouts on this interval (30 s by default): a tenth of the limit keeps it close.
  const server = createServer({ connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(requestTimeoutMs / 10))) }, listener);
  server.requestTimeout = requestTimeoutMs;
  server.headersTimeout = Math.min(server.headersTimeout, requestTimeoutMs);
  return server;
}

/** Starts the extensions in order; one that fails stops those started, and the server, before the error goes on. */
async function startExtensions(extensions: readonly ComponentExtension[], server: Server, running: ExtensionStart, drainTimeoutMs: number): Promise<void> {
  try {
    for (const extension of extensions) await extension.start?.(running);
  } catch (error) {
    await stopExtensions(extensions, drainTimeoutMs);
    server.close();
    throw error;
  }
}

/** This component's registration: what the heartbeat keeps in the registry. */
function registrationOf<C extends CapabilityTypes>(
  spec: ComponentSpec,
  id: string,
  address: AddressInfo,
  options: ComponentOptions<C>,
): Omit<ComponentRegistration, "health"> {
  const { metadata, address: advertise } = options.registration ?? {};
  return {
    id,
    name: spec.name,
    type: spec.kind,
    description: spec.description,
    address: advertisedAddress(address, advertise),
    port: address.port,
    // A worker-mode process answers only /health: it is listed as a worker, never routed to.
    metadata: { version: spec.version, ...plannerMetadata(spec), ...metadata, ...(options.healthOnly === true ? { [ROLE_KEY]: WORKER_ROLE } : {}) },
    capabilities: options.healthOnly === true ? [] : spec.capabilities.map(capabilityWire),
  };
}

interface ShutdownParts {
  readonly spec: ComponentSpec;
  readonly log: Log;
  readonly server: Server;
  readonly state: ServerState;
  readonly extensions: readonly ComponentExtension[];
  readonly heartbeat: Heartbeat | undefined;
  readonly drainTimeoutMs: number;
  /** The component's signal seat, given up when it shuts down. */
  readonly seat: Shutdown | undefined;
}

/** Shutdown, once however often it is asked for: out of the registry, drain, stop the extensions. */
function createShutdown({ spec, log, server, state, extensions, heartbeat, drainTimeoutMs, seat }: ShutdownParts): Shutdown {
  let closing: Promise<void> | undefined;
  const shutdown: Shutdown = (cause) => {
    closing ??= (async () => {
      if (seat !== undefined) releaseSignals(seat);
      log(`${spec.name} shutting down${cause}`);
      // Background work stops being taken at once; requests in flight still finish.
      for (const extension of extensions) extension.draining?.();
      // Out of the registry first, so callers stop picking it while it drains.
      await heartbeat?.stop();
      state.draining = true;
      await drain(server, state, drainTimeoutMs);
      await stopExtensions(extensions, drainTimeoutMs);
      log(`${spec.name} stopped`);
    })();
    return closing;
  };
  return shutdown;
}

export function serveComponent<C extends CapabilityTypes>(spec: ComponentSpec, options: ComponentOptions<C>): Promise<RunningComponent> {
  return serveComponentWith(spec, options, {}).catch((error: unknown) => Promise.reject(startupError(spec.name, error)));
}

/** serveComponent with the app's internal switches; for tests and benchmarks, not exported by the package. */
export async function serveComponentWith<C extends CapabilityTypes>(
  spec: ComponentSpec,
  options: ComponentOptions<C>,
  internals: AppInternals,
): Promise<RunningComponent> {
  const {
    handleSignals = true,
    drainTimeoutMs = DEFAULT_DRAIN_TIMEOUT_MS,
    requestTimeoutMs = 30_000,
    log = defaultComponentLog(spec),
    registry = defaultRegistry(),
    healthCheck,
    registration = {},
    extensions = [],
  } = options;
  // With an OTLP endpoint configured, a served component traces without any code of its own;
  // initTelemetry is once per process, so several components share one SDK.
  if (process.env["OTEL_EXPORTER_OTLP_ENDPOINT"] || process.env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]) {
    await initTelemetry({ serviceName: spec.name, serviceVersion: spec.version });
  }
  const port = resolvePort(options.port, spec.port);
  const host = resolveHost(options.host);
  const { metadata: _metadata, address: _advertise, ...timingOptions } = registration;
  const timing = resolveTiming(timingOptions); // a bad TTL fails before the port is taken
  const health = createHealthProbe(healthCheck, { log: (message) => log(`${spec.name}: ${message}`) });
  // The bound address decides the Host rule (loopback: loopback names only, unless listed).
  // Koa is loaded only for a user's own middleware.
  const around = options.middleware === undefined ? undefined : await loadKoaMiddleware(options.middleware);
  const app = createComponentApp(spec, { ...options, host, log, health, around }, internals);
  const server = createHttpServer(app.listener, requestTimeoutMs);
  const signals = handleSignals ? takeSignalSeat() : undefined;
  let address: AddressInfo, url: string, heartbeat: Heartbeat | undefined, shutdown: Shutdown;
  try {
    address = await listen(server, port, host, spec.name);
    url = dialableUrl(address);
    log(`${spec.name} listening on ${url}`);
    const gated = extensions.flatMap((extension) => extension.gated ?? []);
    await startExtensions(extensions, server, { id: app.id, url, ...(gated.length === 0 ? {} : { gated }) }, drainTimeoutMs);
    // Registered once listening, so nobody finds it before it can answer. A registry that cannot be
    // reached delays the start by at most its connect wait: the component serves anyway and the
    // heartbeat registers it when the registry returns.
    heartbeat = registry === false ? undefined : startHeartbeat(registry, registrationOf(spec, app.id, address, options), { ...timing, health, log });
    // The app's own parts (MCP sessions) drain and stop with the extensions, before them on stop.
    const seat = signals?.seat;
    shutdown = createShutdown({ spec, log, server, state: app.state, extensions: [...extensions, ...app.extensions], heartbeat, drainTimeoutMs, seat });
  } catch (error) {
    signals?.fill(undefined);
    throw error;
  }
  signals?.fill(shutdown);
  await heartbeat?.ready;

  return { spec, id: app.id, url, port: address.port, close: () => shutdown("") };
}
