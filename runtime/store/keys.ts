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
