import { createRequire } from "node:module";
import type { Ajv, Options } from "ajv";

/**
 * The Ajv class, `require`d on the call, not imported: ajv (CommonJS, about 60 modules) then loads only when
 * a process first compiles a schema, and a caller's validation stays synchronous.
 */
export function requireAjv(): typeof Ajv {
  return (createRequire(import.meta.url)("ajv") as typeof import("ajv")).Ajv;
}

/** An ajv with `options`, made (and ajv loaded) on its first use; each call gives an instance of its own. */
export function lazyAjv(options: Options): () => Ajv {
  let ajv: Ajv | undefined;
  return () => (ajv ??= new (requireAjv())(options));
}
