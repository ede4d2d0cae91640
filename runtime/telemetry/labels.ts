import { ATTR, LABELS } from "./names.js";

/** Metric labels as a call site gives them. */
export type Labels = Readonly<Record<string, string | number | boolean | undefined>>;
export type CleanLabels = Record<string, string | number | boolean>;

/**
 * A label named like an id: `id`, `request_id`, `trace.id`, `sessionId`, `step-id`… Ids make a new
 * time series per request, which is what takes a metrics backend down, so no such name is ever a label.
 */
const ID_NAME = /(?:^|[._-])id$|[a-z0-9]Id$/;

/**
 * A value shaped like an id even under an innocent name: a UUID, a long hex or digit run, or one of
 * Manifold's prefixed ids (`sch-…`, `cp-…`, `custom-<unix_nano>`, `workflow-<unix_nano>`). A prefixed
 * value needs a digit after the prefix: `task-runner` is a component name, not an id.
 */
const ID_VALUE =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,}|\d{7,}|(?:sch|cp|custom|workflow|yaml|natural|req|conv|sess|plan|step|task)-(?=[0-9a-z-]*\d)[0-9a-z-]{4,})$/i;

export function isIdLabel(name: string): boolean {
  return ID_NAME.test(name);
}

export function looksLikeId(value: string | number | boolean): boolean {
  return typeof value === "string" ? ID_VALUE.test(value) : typeof value === "number" && Number.isInteger(value) && Math.abs(value) >= 1e6;
}

export interface LabelFilterOptions {
  /** Label names allowed beside the built-in ones; an id-like name throws. @defaultValue none */
  readonly allow?: readonly string[];
  /** Distinct label sets one metric may have before it records an overflow set instead. */
  readonly cardinalityLimit: number;
  /** Told once per metric and label about each dropped label. */
  readonly onDrop?: (metric: string, label: string, why: string) => void;
}

export type LabelFilter = (metric: string, labels: Labels | undefined) => CleanLabels;

/**
 * The guard every recorded metric goes through: names outside the allow-list, id-like names and
 * id-like values are dropped, and past the cardinality limit a metric records only the overflow label.
 */
export function createLabelFilter({ allow = [], cardinalityLimit, onDrop }: LabelFilterOptions): LabelFilter {
  for (const name of allow) {
    if (isIdLabel(name)) throw new RangeError(`metric label ${name} is refused: ids are never metric labels`);
  }
  const allowed = new Set([...LABELS, ...allow]);
  const seen = new Map<string, Set<string>>();
  const reported = new Set<string>();
  const drop = (metric: string, label: string, why: string): void => {
    const key = `${metric}\u0000${label}`;
    if (reported.has(key)) return;
    reported.add(key);
    onDrop?.(metric, label, why);
  };

  return (metric, labels) => {
    const clean: CleanLabels = {};
    if (labels !== undefined) {
      for (const [name, value] of Object.entries(labels)) {
        if (value === undefined) continue;
        if (!allowed.has(name) || isIdLabel(name)) drop(metric, name, "not an allowed label");
        else if (looksLikeId(value)) drop(metric, name, "its value looks like an id");
        else clean[name] = value;
      }
    }
    let sets = seen.get(metric);
    if (sets === undefined) seen.set(metric, (sets = new Set()));
    const key = JSON.stringify(clean);
    if (sets.has(key)) return clean;
    if (sets.size >= cardinalityLimit) {
      drop(metric, "*", `more than ${cardinalityLimit} label sets`);
      return { [ATTR.OVERFLOW]: true };
    }
    sets.add(key);
    return clean;
  };
}
