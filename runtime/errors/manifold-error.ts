import { ERROR_CODES, isErrorCode, type ErrorCategory, type ErrorCode } from "./codes.js";

/** One entry of `error.details`: where the problem is (a JSON pointer into the body) and what it is. */
export interface ErrorDetail {
  readonly pointer: string;
  readonly message: string;
  readonly [key: string]: unknown;
}

export interface ErrorEnvelope {
  readonly success: false;
  readonly error: {
    readonly code: ErrorCode;
    readonly message: string;
    readonly category: ErrorCategory;
    readonly retryable: boolean;
    readonly details?: readonly ErrorDetail[];
    /** How many details were left out past the first MAX_DETAILS. */
    readonly details_omitted?: number;
  };
}

/** An error body is bounded whatever the request: this many details at most, each part cut to MAX_DETAIL_TEXT characters. */
export const MAX_DETAILS = 20;
export const MAX_DETAIL_TEXT = 300;
const MAX_MESSAGE = 2_000;

const cut = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export interface ManifoldErrorOptions {
  readonly details?: readonly ErrorDetail[];
  /** HTTP status; defaults to the code's status from the table. */
  readonly status?: number;
  /** Whether `message` may be shown to a caller. Defaults to true except for INTERNAL. */
  readonly expose?: boolean;
  readonly cause?: unknown;
}

/**
 * The one error class of the runtime. Like Koa's HTTP errors it carries `status` and `expose`, so
 * the component can turn any thrown value into an envelope without leaking what was not meant to be
 * seen; unlike a bag of properties, its `code` is from a closed set.
 */
export class ManifoldError extends Error {
  override readonly name = "ManifoldError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly category: ErrorCategory;
  readonly retryable: boolean;
  readonly expose: boolean;
  readonly details: readonly ErrorDetail[] | undefined;

  constructor(code: ErrorCode, message: string, options: ManifoldErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const info = ERROR_CODES[code];
    this.code = code;
    this.status = options.status ?? info.status;
    this.category = info.category;
    this.retryable = info.retryable;
    this.expose = options.expose ?? code !== "INTERNAL";
    this.details = options.details;
  }

  /** The wire form. An unexposed error keeps its code but not its message. */
  toEnvelope(): ErrorEnvelope {
    const message = this.expose ? cut(this.message, MAX_MESSAGE) : "internal error";
    const details = this.details
      ?.slice(0, MAX_DETAILS)
      .map((d) => ({ ...d, pointer: cut(d.pointer, MAX_DETAIL_TEXT), message: cut(d.message, MAX_DETAIL_TEXT) }));
    const omitted = (this.details?.length ?? 0) - (details?.length ?? 0);
    return {
      success: false,
      error: {
        code: this.code,
        message,
        category: this.category,
        retryable: this.retryable,
        ...(details === undefined ? {} : { details }),
        ...(omitted > 0 ? { details_omitted: omitted } : {}),
      },
    };
  }

  /** Rebuilds the error a component sent, on the client side. */
  static fromEnvelope(status: number, body: unknown): ManifoldError | undefined {
    if (typeof body !== "object" || body === null) return undefined;
    const error = (body as { error?: unknown }).error;
    if (typeof error !== "object" || error === null) return undefined;
    const { code, message, details } = error as { code?: unknown; message?: unknown; details?: unknown };
    if (!isErrorCode(code)) return undefined;
    return new ManifoldError(code, typeof message === "string" ? message : code, {
      status,
      ...(Array.isArray(details) ? { details: details as ErrorDetail[] } : {}),
    });
  }
}

export function isManifoldError(value: unknown): value is ManifoldError {
  return value instanceof ManifoldError;
}

/** Any thrown value → a ManifoldError; anything unexpected becomes an unexposed INTERNAL. */
export function toManifoldError(value: unknown): ManifoldError {
  if (value instanceof ManifoldError) return value;
  return new ManifoldError("INTERNAL", "internal error", { expose: false, cause: value });
}

/**
 * A failure as a client may see it once a stream has started and the errors middleware can no
 * longer answer: an exposed ManifoldError as is, an unexposed one by its code alone, anything else
 * INTERNAL with `fallback` (never the thrown value's text).
 */
export function clientSafe(error: unknown, fallback: string): ManifoldError {
  if (isManifoldError(error)) return error.expose ? error : new ManifoldError(error.code, "internal error");
  return new ManifoldError("INTERNAL", fallback);
}
