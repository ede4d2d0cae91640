/**
 * Every Redis key the runtime writes is `manifold:v1:<namespace>:…` (DESIGN §6). The `v1` is the key
 * layout's version, so a future layout can live beside this one during an upgrade.
 *
 * Redis Cluster puts a key in the slot of the part between its first `{` and `}`, and a script or
 * multi-key command may only touch keys of one slot. So a builder offers three shapes:
 * - `key(...)`: no hash tag, for keys always touched alone;
 * - `shared(...)`: the namespace is the tag (`manifold:v1:{default}:…`): every shared key of a
 *   namespace is in one slot, for small catalogs read and written together (the registry);
 * - `tagged(tag, ...)`: `manifold:v1:<namespace>:{tag}:…`, for per-entity groups (a task and its
 *   records) that should spread over the cluster.
 */
export interface KeyBuilder {
  readonly namespace: string;
  key(...parts: readonly string[]): string;
  shared(...parts: readonly string[]): string;
  tagged(tag: string, ...parts: readonly string[]): string;
}

export const KEY_PREFIX = "manifold:v1";

/** Where the namespace comes from when no option names one, and its value when that is unset too. */
export const NAMESPACE_ENV = "MANIFOLD_REDIS_NAMESPACE";
export const DEFAULT_NAMESPACE = "default";

/**
 * The rule for a namespace, and for any other name that becomes a whole key segment or hash tag (a
 * task queue): no braces (they would move a key's hash slot), no colons (the key separator), no
 * whitespace, and short enough to keep keys short.
 */
const KEY_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** Bad names are a programming or deployment error, found at start-up: a RangeError naming the setting. */
export function checkKeyName(name: string, value: unknown): string {
  if (typeof value === "string" && KEY_NAME.test(value)) return value;
  throw new RangeError(`${name} must be 1-64 letters, digits, '_', '.' or '-' (got ${JSON.stringify(value)})`);
}

/**
 * The one way a module arrives at its key namespace: its own option (reported as `name`), else
 * `MANIFOLD_REDIS_NAMESPACE` (unset or empty means unset), else `default`; checked either way.
 */
export function resolveNamespace(option: string | undefined, env: Readonly<Record<string, string | undefined>> = process.env, name = "namespace"): string {
  if (option !== undefined) return checkKeyName(name, option);
  const fromEnv = env[NAMESPACE_ENV];
  return checkKeyName(NAMESPACE_ENV, fromEnv === undefined || fromEnv === "" ? DEFAULT_NAMESPACE : fromEnv);
}

/** Parts come from names the runtime validates; a brace in one would silently move the key's slot. */
function checkParts(parts: readonly string[]): string {
  for (const part of parts) {
    if (part === "" || /[{}\s]/.test(part)) throw new RangeError(`invalid key part ${JSON.stringify(part)}: empty, or holds a brace or whitespace`);
  }
  return parts.join(":");
}

export function createKeyBuilder(namespace: string): KeyBuilder {
  checkParts([namespace]);
  return {
    namespace,
    key: (...parts) => `${KEY_PREFIX}:${namespace}:${checkParts(parts)}`,
    shared: (...parts) => `${KEY_PREFIX}:{${namespace}}:${checkParts(parts)}`,
    tagged: (tag, ...parts) => `${KEY_PREFIX}:${namespace}:{${checkParts([tag])}}:${checkParts(parts)}`,
  };
}
