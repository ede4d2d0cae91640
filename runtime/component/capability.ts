import type { IncomingMessage, ServerResponse } from "node:http";
import { ManifoldError, toManifoldError } from "../errors/index.js";
import { requestIdOf, runInScope } from "../context/index.js";
import type { CapabilitySpec } from "../spec/index.js";
import { getTelemetry, type ServerTrace } from "../telemetry/index.js";
import { isThenable } from "../util/index.js";
import { AUTH_CHALLENGE, type AuthCheck } from "./auth.js";
import { readBody } from "./body.js";
import { CallContext } from "./call-context.js";
import { errorResponse, type Log } from "./errors-middleware.js";
import { JsonReply } from "./json-route.js";
import { writeReply, type Reply, type ServerState } from "./reply.js";
import type { Handler } from "./types.js";
import type { InputValidator } from "./validate.js";

/** One JSON POST (a capability call, or an extension's fast route) from the raw request. Neither function ever throws or rejects. */
export interface CapabilityCall {
  /** Runs the call and resolves to its reply, for a route handler that writes the response itself. */
  readonly reply: (req: IncomingMessage, res: ServerResponse) => Promise<Reply>;
  /** Runs the call and writes the reply straight to `res`: the raw route. */
  readonly serve: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface CapabilityCallOptions {
  readonly component: string;
  readonly bodyLimit: number;
  readonly log: Log;
  readonly state: ServerState;
  /** Bearer authentication, checked before the body is read. @defaultValue none */
  readonly auth?: AuthCheck | undefined;
}

/** `read`: the body was read whole, so the answer need not linger for the rest of it (writeReply). */
type Done = (res: ServerResponse, reply: Reply, read?: boolean) => void;

/** What answers a POST once its body is read and valid: the output (a `jsonReply` sets the status), or a promise of it. */
export type PostInvoke = (input: Record<string, unknown>, context: CallContext) => unknown;

/** How a POST route is named and checked: `name` is the context's `capability`, `where` prefixes its log lines. */
export interface PostRoute {
  readonly name: string;
  readonly where: string;
  /** The body's schema and the message of its 400; a route without one checks its body itself. */
  readonly schema?: { readonly validate: InputValidator; readonly invalid: string };
  readonly invoke: PostInvoke;
}

/** A capability's POST: its handler, after its input schema. */
export function createCapabilityCall(
  capability: CapabilitySpec,
  handler: Handler<unknown, unknown>,
  validate: InputValidator,
  options: CapabilityCallOptions,
): CapabilityCall {
  const { name } = capability;
  return createPostCall(
    { name, where: `${options.component} ${name}`, schema: { validate, invalid: `input of ${name} does not match its schema` }, invoke: handler },
    options,
  );
}

/**
 * The whole capability pipeline, independent of any route context so that the raw route and the
 * route handler (`fastPath: false`) run the very same code: authenticate → read body → validate → handler → serialise, every
 * failure an envelope. Written with callbacks, not async/await: a synchronous handler is answered
 * without a single promise, which is a measurable share of a request at the throughput we aim for.
 * The handler runs in its request scope (the CallContext, through AsyncLocalStorage) so outbound
 * calls it makes carry its ids, token and headers; inside its server span only when telemetry is on.
 */
export function createPostCall({ name, where, schema, invoke }: PostRoute, { bodyLimit, log, state, auth }: CapabilityCallOptions): CapabilityCall {
  const fail = (res: ServerResponse, requestId: string, error: unknown, done: Done, trace?: ServerTrace, read = false): void => {
    const { status, body } = errorResponse(error, log, `${where} [${requestId}]`);
    trace?.fail(toManifoldError(error).code);
    done(res, status === 401 ? { status, body, requestId, headers: AUTH_CHALLENGE } : { status, body, requestId }, read);
  };
  const succeed = (res: ServerResponse, requestId: string, output: unknown, done: Done): void => {
    const reply = output instanceof JsonReply ? output : undefined;
    let body: string;
    try {
      // `undefined` (a void handler) has no JSON form; `null` keeps the body valid JSON.
      body = JSON.stringify(reply === undefined ? output : reply.body) ?? "null";
    } catch (error) {
      return fail(res, requestId, error, done, undefined, true);
    }
    done(res, { status: reply?.status ?? 200, body, requestId }, true);
  };

  // `owned`: the raw route, where nothing but this code can reach the request (readBody).
  const handle = (req: IncomingMessage, res: ServerResponse, done: Done, owned: boolean, requestId: string, trace: ServerTrace | undefined): void => {
    readBody(
      req,
      bodyLimit,
      (error, input, whole) => {
        if (input === undefined) return fail(res, requestId, error, done, trace, whole);
        const details = schema === undefined ? undefined : schema.validate(input);
        if (details !== undefined) return fail(res, requestId, new ManifoldError("INVALID_INPUT", schema!.invalid, { details }), done, trace, true);
        const context = new CallContext(name, requestId, req, res, state, trace);
        let output: unknown;
        try {
          output = trace === undefined ? runInScope(context, invoke, input, context) : trace.run(() => runInScope(context, invoke, input, context));
        } catch (thrown) {
          return fail(res, requestId, thrown, done, trace, true);
        }
        if (!isThenable(output)) return succeed(res, requestId, output, done);
        output.then(
          (value) => succeed(res, requestId, value, done),
          (thrown: unknown) => fail(res, requestId, thrown, done, trace, true),
        );
      },
      owned,
    );
  };

  const run = (req: IncomingMessage, res: ServerResponse, done: Done, owned: boolean): void => {
    const telemetry = getTelemetry();
    const trace = telemetry.enabled ? telemetry.serverTraceOf(req) : undefined;
    const requestId = requestIdOf(req, trace?.requestId);
    if (auth === undefined) return handle(req, res, done, owned, requestId, trace);
    auth(req, (error) => {
      if (error !== undefined) return fail(res, requestId, error, done, trace);
      handle(req, res, done, owned, requestId, trace);
    });
  };

  const write: Done = (res, reply, read) => {
    try {
      writeReply(res, reply, state, read);
    } catch (error) {
      errorResponse(error, log, `${where} writing the response`);
      res.destroy();
    }
  };

  return {
    reply: (req, res) => new Promise((resolve) => run(req, res, (_res, reply) => resolve(reply), false)),
    serve: (req, res) => run(req, res, write, true),
  };
}
