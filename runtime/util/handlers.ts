/**
 * Handler maps given in code (a component's capability handlers, an agent's task handlers) are
 * checked the same way before the port is taken: by own keys only, so a key on the prototype
 * (`toString`, `__proto__`) never counts as a handler, and each mistake is a TypeError naming the key.
 */

export interface HandlerMapRules {
  /** How the map is written in the options: `handlers`, `task handlers`. */
  readonly prefix: string;
  /** What each key names, with its article: `a capability`, `a task type`. */
  readonly noun: string;
  /** Whose map it is: the component's name. */
  readonly owner: string;
}

/** Throws for the first own key of `given` that is not in `keys`. */
export function checkHandlerKeys(given: object, keys: ReadonlySet<string>, { prefix, noun, owner }: HandlerMapRules): void {
  for (const key of Object.keys(given)) {
    if (!keys.has(key)) throw new TypeError(`${prefix}.${key} is not ${noun} of ${owner}`);
  }
}

/** The function at own key `key` of `given`; `what` says what it handles, for the error. */
export function handlerAt<H>(given: object, key: string, prefix: string, what: string): H {
  const handler: unknown = Object.hasOwn(given, key) ? (given as Record<string, unknown>)[key] : undefined;
  if (typeof handler !== "function") throw new TypeError(`${prefix}.${key} must be a function (${what})`);
  return handler as H;
}
