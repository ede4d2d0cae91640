/**
 * `natural.binding`: the run-time half of the plan check. The static check (check-plan.ts) proved the
 * literal parameters against each capability's input schema and the templates against the output
 * summaries it knows; what a template reads is only known once its source step has answered. Before a
 * natural-mode step is dispatched, its resolved parameters are checked with ajv against the
 * capability's input schema. A parameter that does not fit (an array where a string is required, an
 * object where a number is, a field the source output lacks — the template then gives nothing, so a
 * required parameter is absent) and whose plan value is a template over an earlier step is
 * micro-resolved (micro-resolution.ts) when the request allows a model call; the value is checked
 * again. Anything that still does not fit is `parameter.binding.rejected`: the step fails with
 * INVALID_INPUT and the tool receives nothing.
 *
 * The check runs in one-shot mode too (only the model call is off): it is what "a tool never receives
 * parameters that fail its schema" rests on. A step whose parameters fit costs one ajv call and
 * answers synchronously.
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import { escapeToken } from "../../component/index.js";
import { ManifoldError } from "../../errors/index.js";
import type { LlmProvider } from "../../llm/index.js";
import { fieldsFromSummary, objectSchema, type CapabilityWire } from "../../spec/index.js";
import { capabilityIn, type CatalogComponent } from "../catalog.js";
import type { BeforeStepDecision, StepContext } from "../interceptors.js";
import type { Interceptor } from "../pipeline-interceptors.js";
import { microResolve, type MicroResolution } from "./micro-resolution.js";
import { currentNaturalRun, llmEventScope, requestEvent, type NaturalRun } from "./run-context.js";
import { lazyAjv } from "../../util/index.js";

export const BINDING = "natural.binding";

export interface BindingOptions {
  /** The provider micro-resolution asks (configure.ts hands the budgeted one). */
  readonly provider: LlmProvider;
}

/** A capability's input schema, compiled once per wire object, and its properties' validators on first use. */
interface InputCheck {
  readonly validate: ValidateFunction;
  readonly properties: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly byParam: Map<string, ValidateFunction>;
}

/** One parameter that does not fit: its name ("" for the parameters as a whole) and ajv's sentence. */
interface Mismatch {
  readonly param: string;
  readonly message: string;
}

// ajv made (and loaded) when a plan or step is first checked: an agent that starts loads none of it.
const ajv = lazyAjv({ allErrors: true, strict: false });

/** `{{<step>.response…}}`, as the executor reads it (expressions.ts): the step whose output a value comes from. */
const TEMPLATE = /\{\{\s*([A-Za-z0-9_-]+)\.response(?:\.[A-Za-z0-9_.-]*)?\s*\}\}/;

export function createBindingInterceptor({ provider }: BindingOptions): Interceptor {
  // Keyed by the catalog's wire objects: a refreshed catalog brings new objects, the old entries go with it.
  const checks = new WeakMap<CapabilityWire, InputCheck | null>();
  const checkOf = (catalog: readonly CatalogComponent[], agent: string, capability: string): InputCheck | null => {
    const wire = capabilityIn(catalog, agent, capability);
    if (wire === undefined) return null;
    let check = checks.get(wire);
    if (check === undefined) {
      check = wire.input_summary === undefined ? null : compileInput(wire);
      checks.set(wire, check);
    }
    return check;
  };
  return {
    name: BINDING,
    beforeStep: (context) => {
      if (context.mode !== "natural") return undefined;
      const run = currentNaturalRun();
      if (run?.catalog === undefined) return undefined;
      const check = checkOf(run.catalog, context.step.agent_name, context.step.metadata.capability);
      if (check === null || check.validate(context.parameters)) return undefined;
      // Read ajv's errors now: the validator is shared, and the next call overwrites them.
      return bind({ provider, run, check, context, found: mismatches(check.validate.errors ?? []) });
    },
  };
}

function compileInput(wire: CapabilityWire): InputCheck {
  const schema = objectSchema(fieldsFromSummary(wire.input_summary!), "draft-07");
  return { validate: ajv().compile(schema), properties: schema["properties"] as InputCheck["properties"], byParam: new Map() };
}

function paramValidator(check: InputCheck, param: string): ValidateFunction {
  let validate = check.byParam.get(param);
  if (validate === undefined) {
    validate = ajv().compile(check.properties[param]!);
    check.byParam.set(param, validate);
  }
  return validate;
}

const unescapeToken = (token: string): string => token.replaceAll("~1", "/").replaceAll("~0", "~");

/** ajv's errors by top-level parameter (the first sentence for each). */
function mismatches(errors: readonly ErrorObject[]): Mismatch[] {
  const found = new Map<string, string>();
  for (const error of errors) {
    const [, head = "", ...rest] = error.instancePath.split("/");
    let param = unescapeToken(head);
    let message = `${rest.length === 0 ? "" : `${rest.map(unescapeToken).join(".")} `}${error.message ?? `violates ${error.keyword}`}`;
    if (error.instancePath === "" && error.keyword === "required") {
      param = String(error.params["missingProperty"]);
      message = "is required, and the value its template read is absent";
    } else if (error.instancePath === "" && error.keyword === "additionalProperties") {
      param = String(error.params["additionalProperty"]);
      message = "is not a parameter of this capability";
    }
    if (!found.has(param)) found.set(param, message);
  }
  return [...found].map(([param, message]) => ({ param, message }));
}

interface Binding {
  readonly provider: LlmProvider;
  readonly run: NaturalRun;
  readonly check: InputCheck;
  readonly context: StepContext;
  readonly found: readonly Mismatch[];
}

async function bind(binding: Binding): Promise<BeforeStepDecision> {
  const { run, check, context, found } = binding;
  const parameters = { ...(context.parameters as Record<string, unknown>) };
  for (const mismatch of found) {
    const resolved = await resolveParam(binding, mismatch);
    // A resolution cut short by the request's end (hang-up, timeout) says nothing about the value's shape.
    if (run.signal.aborted) return { action: "fail", error: abortError(run.signal) };
    if ("failed" in resolved) return reject(binding, mismatch, resolved.failed);
    parameters[mismatch.param] = resolved.value;
  }
  // Each value fits its own schema; the parameters as a whole are checked once more before dispatch.
  if (!check.validate(parameters)) {
    const [first] = mismatches(check.validate.errors ?? []);
    return reject(binding, first ?? { param: "", message: "do not fit the input schema" }, "the resolved parameters still do not fit");
  }
  const { step } = context;
  run.progress?.({ kind: "retry", step_id: step.step_id, capability: step.metadata.capability, reason: "micro_resolution" });
  return { action: "replace", parameters };
}

/** The parameter's value derived by the model and checked, or why there is none. */
async function resolveParam({ provider, run, check, context }: Binding, { param }: Mismatch): Promise<MicroResolution> {
  const { step } = context;
  const schema = check.properties[param];
  if (param === "" || schema === undefined) return { failed: "micro-resolution binds declared parameters only" };
  const planValue = (step.metadata.parameters as Record<string, unknown> | undefined)?.[param];
  const template = typeof planValue === "string" ? planValue : (JSON.stringify(planValue) ?? "");
  const sourceStep = TEMPLATE.exec(template)?.[1];
  if (sourceStep === undefined) return { failed: "its value in the plan reads no earlier step" };
  // A retry's parameters are the retrying interceptor's, not the template's: only the first pass is resolved.
  if (context.round > 0) return { failed: "its value was replaced after the plan" };
  if (!run.settings.microResolution) return { failed: "micro-resolution is off" };
  if (!run.canAsk()) return { failed: "the request's language-model call budget is spent" };
  const source = context.outputOf?.(sourceStep);
  if (source === undefined) return { failed: `step ${sourceStep} has no output to resolve it from` };
  const capability = `${step.agent_name}.${step.metadata.capability}`;
  const answer = await microResolve({ provider, run, stepId: step.step_id, capability, param, schema, template, sourceStep, source });
  if ("failed" in answer) return answer;
  const validate = paramValidator(check, param);
  if (!validate(answer.value)) return { failed: `the value the language model derived does not fit either (${validate.errors?.[0]?.message ?? "schema"})` };
  requestEvent("semantic_template_resolution", {
    ...llmEventScope(),
    step_id: step.step_id,
    param_name: param,
    source_step: sourceStep,
    original_template: template.slice(0, 200),
    binding_method: "inferred",
  });
  return answer;
}

/** Why the request stopped: the signal's own error (TIMEOUT, ABORTED) when it has one. */
const abortError = (signal: AbortSignal): ManifoldError =>
  signal.reason instanceof ManifoldError ? signal.reason : new ManifoldError("ABORTED", "the request was aborted");

/** The step fails before dispatch: the tool receives nothing. */
function reject({ context }: Binding, { param, message }: Mismatch, why: string): BeforeStepDecision {
  const { step } = context;
  const target = `${step.agent_name}.${step.metadata.capability}`;
  requestEvent("parameter.binding.rejected", {
    ...llmEventScope(),
    step_id: step.step_id,
    capability: target,
    param_name: param,
    reason: "shape_mismatch",
    dispatch_count: 0,
  });
  const name = param === "" ? "its parameters" : `parameter ${param}`;
  return {
    action: "fail",
    error: new ManifoldError("INVALID_INPUT", `step ${step.step_id} was not dispatched: ${name} of ${target} ${message} (${why})`, {
      details: [{ pointer: param === "" ? "" : `/${escapeToken(param)}`, message: `${message}; ${why}`, reason: "shape_mismatch" }],
    }),
  };
}
