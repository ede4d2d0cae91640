/**
 * Validates Kubernetes objects against the published API schemas (kubernetes-models, no network). The
 * schemas do not forbid unknown keys (a misspelt `livenesProbe` would pass and be ignored by the API
 * server), so every key is also probed: its value is replaced by one of the wrong type, and a key whose
 * replacement the schema does not reject is one the schema does not know.
 */
import { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import { ConfigMap, Service } from "kubernetes-models/v1";

type Model = new (data: any) => { validate(): void };

const MODELS: Readonly<Record<string, Model>> = {
  "apps/v1 Deployment": Deployment,
  "apps/v1 StatefulSet": StatefulSet,
  "v1 Service": Service,
  "v1 ConfigMap": ConfigMap,
};

function schemaErrors(model: Model, object: unknown): string | undefined {
  try {
    new model(structuredClone(object)).validate();
    return undefined;
  } catch (error) {
    return String(error instanceof Error ? error.message : error);
  }
}

type Path = readonly (string | number)[];

function paths(value: unknown, at: Path = []): Path[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => [[...at, i], ...paths(v, [...at, i])]);
  if (typeof value === "object" && value !== null) return Object.entries(value).flatMap(([k, v]) => [[...at, k], ...paths(v, [...at, k])]);
  return [];
}

function replaced(object: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(object) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
  return copy;
}

/** The schema problems of one object, plus `unknown key a.b.c` for each key no schema constrains. */
export function kubernetesProblems(object: Record<string, unknown>): string[] {
  const model = MODELS[`${String(object["apiVersion"])} ${String(object["kind"])}`];
  if (model === undefined) return [`no schema for ${String(object["apiVersion"])} ${String(object["kind"])}`];
  const problems: string[] = [];
  const errors = schemaErrors(model, object);
  if (errors !== undefined) problems.push(errors);
  for (const path of paths(object)) {
    // Free-form maps (labels, ConfigMap data) constrain their values' type; a wrong type is always rejected when the key is known.
    const current: unknown = path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], object);
    const wrong = typeof current === "boolean" ? "not-a-boolean" : Array.isArray(current) ? 7 : typeof current === "object" ? 7 : { wrong: true };
    // Unchanged errors (none, or only the object's own) mean the schema never looked at this key.
    if (schemaErrors(model, replaced(object, path, wrong)) === errors) problems.push(`unknown key ${path.join(".")}`);
  }
  return problems;
}
