export { ERROR_CODES, isErrorCode, type ErrorCategory, type ErrorCode } from "./codes.js";
export {
  ManifoldError,
  clientSafe,
  isManifoldError,
  toManifoldError,
  type ErrorDetail,
  type ErrorEnvelope,
  type ManifoldErrorOptions,
} from "./manifold-error.js";
