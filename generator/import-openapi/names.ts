/** Names an import derives: capability names from operations, field names from parameters, the tool's name. */
import { isFieldName } from "../../runtime/manifest/json-schema-fields.js";
import { toCamelCase } from "../../runtime/spec/index.js";

/** `getPetById`, `get-pet by id`, `GetPETById` → `get_pet_by_id`. */
export function snakeCase(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/** The capability name an operation asks for: its operationId, else method and path (`{id}` → `by_id`). */
export function wantedCapabilityName(operationId: unknown, method: string, path: string): string {
  const base =
    typeof operationId === "string" && snakeCase(operationId) !== ""
      ? snakeCase(operationId)
      : snakeCase(`${method} ${path.replace(/\{([^}]*)\}/g, " by $1 ")}`);
  const name = /^[a-z]/.test(base) ? base : `op_${base}`;
  return name.slice(0, 100).replace(/_+$/, "");
}

/** Hands out capability names: a taken one (or one with the same camelCase) gets `_2`, `_3`, … */
export function createNamer(): (wanted: string) => string {
  const taken = new Set<string>();
  return (wanted) => {
    let name = wanted;
    for (let n = 2; taken.has(toCamelCase(name)); n++) name = `${wanted}_${n}`;
    taken.add(toCamelCase(name));
    return name;
  };
}

/** A field name for a wire name (`X-Request-ID` → `x_request_id`, `filter[name]` → `filter_name`). */
export function fieldNameOf(wire: string): string {
  if (isFieldName(wire)) return wire;
  const cleaned = wire.replace(/[^A-Za-z0-9_]+/g, "_").replace(/^_+|_+$/g, "");
  const name = /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
  return isFieldName(name) ? name : `${name}_`;
}

/** The tool's name, a DNS label, from the document's title. */
export function componentNameOf(title: unknown): string {
  const label = (typeof title === "string" ? title : "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^[^a-z]+/, "")
    .slice(0, 63)
    .replace(/-+$/, "");
  return label === "" ? "imported-api" : label;
}
