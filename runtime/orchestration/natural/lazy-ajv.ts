import { createRequire } from "node:module";
import type { Ajv } from "ajv";

/**
 * An ajv (allErrors, strict off) made on its first use, ajv itself required then: the natural-mode checks
 * compile only when a plan or a step is checked, so an agent that starts loads no ajv for them.
 * Each caller keeps its own instance, as each module had one.
 */
export function lazyAjv(): () => Ajv {
  let ajv: Ajv | undefined;
  return () => (ajv ??= new (createRequire(import.meta.url)("ajv") as typeof import("ajv")).Ajv({ allErrors: true, strict: false }));
}
