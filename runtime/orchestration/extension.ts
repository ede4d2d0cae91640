/**
 * The orchestration routes of an agent, as a component extension:
 *
 * - `POST /orchestrate/<workflow>` for each workflow the agent serves (its manifest's
 *   `orchestration.workflows`) and each YAML workflow file given at start-up;
 * - `POST /orchestrate/custom` when the manifest enables custom mode;
 * - `POST /orchestrate/natural` when the manifest enables natural mode or a planner is given; without
 *   a language model (or planner) it answers 503 LLM_UNAVAILABLE naming the variables to set.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { escapeToken, jsonRoute, type AddRoute, type ComponentExtension, type ForwardOptions, type JsonWork } from "../component/index.js";
import { defaultRegistry } from "../discovery/index.js";
import { ManifoldError } from "../errors/index.js";
import { llmUnavailable } from "../llm/index.js";
import { AI_SYNTHESIS_FIELD, isDnsLabel } from "../spec/index.js";
import type { ComponentSpec, WorkflowSpec } from "../spec/index.js";
import { createLogger, type Logger } from "../telemetry/index.js";
import { RESERVED_WORKFLOW_NAMES } from "../manifest/dataflow/index.js";
import { createOrchestrator, type Orchestrator, type OrchestratorOptions, type ResumeRun, type RunOptions } from "./orchestrator.js";
import { naturalResponse, workflowFailed, workflowResponse } from "./http.js";
import { registerMcpServers, type McpRegistrations } from "./mcp-registrations.js";
import { createOrchestrationMcpTools, type RouteWork } from "./mcp-tools.js";
import type { RunRequest } from "./pipeline-interceptors.js";
import type { StepResult, StepRound } from "./executor-types.js";
import { checkWorkflowInputs } from "./workflow.js";
import { createWorkflowEngine, invalidWorkflow, type WorkflowEngine } from "./yaml-engine.js";

/** Longest natural-language request taken, in characters: a prompt is paid for by the token. */
export const MAX_NATURAL_REQUEST = 8000;

export interface OrchestrationOptions extends OrchestratorOptions {
  /**
   * YAML workflow manifests checked against the live catalog when the agent starts and served at
   * `/orchestrate/<name>` like generated ones. A workflow naming a component not registered yet is
   * checked again on its first call. @defaultValue none
   */
  readonly workflowFiles?: readonly string[];
  /**
   * Copy the incoming bearer token (unless `token: false`) and the named headers into every step
   * call of a request. @defaultValue nothing is forwarded: step calls carry the configured token and headers
   */
  readonly forward?: ForwardOptions;
}

/** What a task (or any code of the agent) passes to run a workflow by name. */
export interface RunWorkflowByNameOptions {
  readonly signal?: AbortSignal;
  /** Told after each step: steps finished so far, of how many, and the last one's id. */
  readonly progress?: (progress: { current_step: number; total_steps: number; step_name: string; percentage: number }) => unknown;
  /** Told when each round of a step ends, with what it was called with (chat's AI SDK tool parts show it as their input). */
  readonly onRound?: (round: StepRound) => void;
  /** Told, before `progress`, of each finished step's result (its output or error: the tool part's output). */
  readonly onStep?: (step: StepResult) => void;
}

export interface OrchestrationExtension extends ComponentExtension {
  readonly orchestrator: Orchestrator;
  /**
   * Runs one of the agent's workflows (generated or YAML) and resolves to its outputs; a failed run
   * rejects with WORKFLOW_FAILED, unknown names with NOT_FOUND, bad inputs with INVALID_INPUT.
   */
  runWorkflow(name: string, inputs: unknown, options?: RunWorkflowByNameOptions): Promise<Record<string, unknown>>;
  /**
   * Continues a paused run (HITL: one a human approved) and answers as its route would have: the
   * result body, a new paused answer (a further checkpoint), or a thrown ManifoldError.
   */
  resume(paused: RunRequest, resume: ResumeRun, options?: ResumeRunOptions): Promise<unknown>;
  /**
   * Told when a resumed run finishes with an answer (not a further checkpoint), with the checkpoint's
   * user context and requester: chat stores the answer in the conversation the run started in, or in
   * a new session of the requester's when it named none. The answer then names that `session_id`.
   */
  onResumed(listener: ResumedListener): void;
}

/** Who made a paused request (a checkpoint's `requested_by`): the owner of what its resumed answer creates. */
export interface Requester {
  readonly subject: string;
  readonly kind: "user" | "agent";
}

export interface ResumeRunOptions extends RunOptions {
  /** @defaultValue unknown: listeners take the caller's identity */
  readonly requestedBy?: Requester;
}

export type ResumedListener = (resumed: {
  readonly mode: RunRequest["mode"];
  readonly userContext: { readonly conversation_id?: string; readonly session_id?: string };
  readonly requestedBy?: Requester;
  readonly answer: unknown;
}) => ResumedOutcome | undefined | Promise<ResumedOutcome | undefined>;

/** What a listener did with a resumed answer: the chat session now holding it, which the answer then names. */
export interface ResumedOutcome {
  readonly session_id?: string;
}

/** yaml (about 70 modules, CommonJS) loads only for workflow files given at start, not with every agent. */
const require = createRequire(import.meta.url);

/** Reads each file now, for its name (routes are added before the agent listens); the check comes at start. */
function readWorkflowFiles(files: readonly string[]): Map<string, { file: string; text: string }> {
  const byName = new Map<string, { file: string; text: string }>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const { parse } = require("yaml") as typeof import("yaml");
    let name: unknown;
    try {
      name = (parse(text) as { name?: unknown } | null)?.name;
    } catch {
      name = undefined;
    }
    if (!isDnsLabel(name)) throw new TypeError(`workflow file ${file}: no valid \`name\` (a DNS label) found`);
    if (RESERVED_WORKFLOW_NAMES.includes(name)) throw new TypeError(`workflow file ${file}: ${name} is reserved for /orchestrate/${name}`);
    if (byName.has(name)) throw new TypeError(`workflow files ${byName.get(name)!.file} and ${file} are both named ${name}`);
    byName.set(name, { file, text });
  }
  return byName;
}

interface YamlState {
  readonly file: string;
  readonly text: string;
  spec: WorkflowSpec | undefined;
  /** The last check's error while it named components not registered yet. */
  pending: ManifoldError | undefined;
}

/** What the extension serves, and what its routes share. */
interface Served {
  readonly spec: ComponentSpec;
  readonly options: OrchestrationOptions;
  readonly log: Logger;
  readonly orchestrator: Orchestrator;
  /** The agent's generated workflows by name. */
  readonly generated: ReadonlyMap<string, WorkflowSpec>;
  /** Those it serves at `/orchestrate/<name>`. */
  readonly served: readonly WorkflowSpec[];
  readonly yaml: ReadonlyMap<string, YamlState>;
  engine: WorkflowEngine | undefined;
  readonly resumedListeners: ResumedListener[];
}

export function createOrchestrationExtension(spec: ComponentSpec, options: OrchestrationOptions = {}): OrchestrationExtension {
  const log = options.log ?? createLogger({ service: spec.name, component: "orchestration" });
  const allowLastingEffects = options.allowLastingEffects ?? spec.agent?.orchestration.natural?.allowLastingEffects;
  const plannerCapabilities = options.plannerCapabilities ?? spec.agent?.plannerCapabilities;
  const orchestrator = createOrchestrator({
    ...options,
    log,
    ...(allowLastingEffects === undefined ? {} : { allowLastingEffects }),
    ...(plannerCapabilities === undefined ? {} : { plannerCapabilities }),
  });
  const generated = new Map((spec.agent?.orchestration.workflows ?? []).map((w) => [w.name, w]));
  const served = (spec.agent?.orchestration.endpoints ?? []).map((name) => {
    const workflow = generated.get(name);
    if (workflow === undefined) throw new TypeError(`${spec.name} serves workflow ${name} but its spec does not hold it`);
    return workflow;
  });
  const yaml = new Map<string, YamlState>();
  for (const [name, source] of readWorkflowFiles(options.workflowFiles ?? [])) {
    if (generated.has(name)) throw new TypeError(`workflow file ${source.file}: ${spec.name} already has a workflow named ${name}`);
    yaml.set(name, { ...source, spec: undefined, pending: undefined });
  }
  const state: Served = { spec, options, log, orchestrator, generated, served, yaml, engine: undefined, resumedListeners: [] };
  // MCP tools call the routes' own work (YAML workflows are typed only once checked at start: not tools).
  const naturalWork: RouteWork = (body, { signal }) => naturalRoute(state, body, signal);
  const mcpTools = createOrchestrationMcpTools({
    spec,
    log,
    ...(servesNatural(state) ? { natural: { run: naturalWork, maxRequest: MAX_NATURAL_REQUEST } } : {}),
    workflows: served.map((workflow) => ({ workflow, run: workflowRoute(state, () => workflow, "workflow") })),
  });
  let registrations: McpRegistrations | undefined;
  return {
    name: "orchestration",
    orchestrator,
    mcpTools,
    routes: (add, { bodyLimit }) => addRoutes(state, add, bodyLimit),
    start: () => {
      registrations = startMcpRegistrations(spec, options, log);
      return checkYamlAtStart(state);
    },
    async stop() {
      await registrations?.stop();
      try {
        await orchestrator.close();
      } catch (error) {
        log.warn("orchestration: closing the execution store failed", { error });
      }
    },
    resume: (paused, resume, runOptions = {}) => resumeRun(state, paused, resume, runOptions),
    onResumed(listener) {
      state.resumedListeners.push(listener);
    },
    runWorkflow: (name, inputs, byName = {}) => runWorkflowByName(state, name, inputs, byName),
  };
}

/** The used MCP servers' registry entries, where the orchestrator finds components (none with `registry: false`). */
function startMcpRegistrations(spec: ComponentSpec, options: OrchestrationOptions, log: Logger): McpRegistrations | undefined {
  const components = options.components ?? [];
  if (options.registry === false || !components.some((c) => c.mcpServer?.url !== undefined)) return undefined;
  const registry = options.registry ?? defaultRegistry();
  return registerMcpServers({
    components,
    registry,
    agentName: spec.name,
    ...(options.env === undefined ? {} : { env: options.env }),
    log: (line) => log.warn(line),
  });
}

function engineOf(state: Served): WorkflowEngine {
  state.engine ??= createWorkflowEngine({ ...state.options, orchestrator: state.orchestrator, log: state.log });
  return state.engine;
}

/** Checks a YAML workflow against the catalog as it is now; throws when it cannot run. */
async function checkYaml(state: Served, name: string, yaml: YamlState): Promise<WorkflowSpec> {
  const result = await engineOf(state).check(yaml.text, yaml.file);
  if (result.spec !== undefined) {
    yaml.spec = result.spec;
    yaml.pending = undefined;
    for (const warning of result.diagnostics) state.log.warn(`${warning.file}:${warning.line}:${warning.column} ${warning.code} ${warning.message}`);
    return result.spec;
  }
  const invalid = invalidWorkflow(yaml.file, result.diagnostics);
  if (result.missing.size === 0) throw invalid;
  // Its tools may simply not have registered yet (started at the same time): try again on a call.
  yaml.pending = invalid;
  throw new ManifoldError("UNAVAILABLE", `workflow ${name} calls ${[...result.missing].sort().join(", ")}, not registered yet`, { cause: invalid });
}

const yamlSpec = async (state: Served, name: string, yaml: YamlState): Promise<WorkflowSpec> => yaml.spec ?? checkYaml(state, name, yaml);

/** A workflow by name, generated or YAML, and the mode it runs in. */
async function workflowNamed(state: Served, name: string | undefined): Promise<{ workflow: WorkflowSpec; mode: "workflow" | "yaml" } | undefined> {
  if (name === undefined) return undefined;
  const generated = state.generated.get(name);
  if (generated !== undefined) return { workflow: generated, mode: "workflow" };
  const yaml = state.yaml.get(name);
  return yaml === undefined ? undefined : { workflow: await yamlSpec(state, name, yaml), mode: "yaml" };
}

/** Each YAML file is checked when the agent starts; one naming components not registered yet is checked again on its first call. */
async function checkYamlAtStart(state: Served): Promise<void> {
  for (const [name, yaml] of state.yaml) {
    try {
      await checkYaml(state, name, yaml);
      state.log(`workflow ${name} loaded from ${yaml.file}`);
    } catch (error) {
      if (yaml.pending === undefined) throw error;
      state.log.warn(`workflow ${name} (${yaml.file}) calls components not registered yet; it is checked again on its first call`);
    }
  }
}

const runOptions = (signal: AbortSignal | undefined, synthesise: boolean): RunOptions => ({ ...(signal === undefined ? {} : { signal }), synthesise });

function addRoutes(state: Served, add: AddRoute, bodyLimit: number): void {
  const { orchestrator, options } = state;
  const agent = state.spec.agent;
  const route = (path: string, work: JsonWork): void =>
    add("POST", path, jsonRoute(work, { bodyLimit, ...(options.forward === undefined ? {} : { forward: options.forward }) }));
  for (const workflow of state.served)
    route(
      `/orchestrate/${workflow.name}`,
      workflowRoute(state, () => workflow, "workflow"),
    );
  for (const [name, yaml] of state.yaml)
    route(
      `/orchestrate/${name}`,
      workflowRoute(state, () => yamlSpec(state, name, yaml), "yaml"),
    );
  if (agent?.orchestration.custom === true)
    route("/orchestrate/custom", async (body, { signal }) => {
      const { paused, ...answer } = await orchestrator.runCustom(body, runOptions(signal, false));
      return paused ?? answer;
    });
  if (servesNatural(state)) route("/orchestrate/natural", (body, { signal }) => naturalRoute(state, body, signal));
}

const servesNatural = ({ orchestrator, spec }: Served): boolean => orchestrator.hasPlanner || spec.agent?.orchestration.natural !== undefined;

function workflowRoute(state: Served, specOf: () => Promise<WorkflowSpec> | WorkflowSpec, mode: "workflow" | "yaml"): RouteWork {
  return async (body, { signal }) => {
    const workflow = await specOf();
    const request = checkWorkflowInputs(workflow, body, "request");
    const { [AI_SYNTHESIS_FIELD]: synthesis, ...inputs } = request;
    const result = await state.orchestrator.runWorkflow(workflow, inputs, { ...runOptions(signal, synthesis === true), mode });
    return result.paused ?? workflowResponse(result);
  };
}

/** A natural request's body: `request` (a non-empty string, at most MAX_NATURAL_REQUEST characters) and `ai_synthesis?`, nothing else. */
export function naturalRequestOf(body: Record<string, unknown>): { request: string; synthesis: boolean | undefined } {
  const { request, [AI_SYNTHESIS_FIELD]: synthesis, ...rest } = body;
  const unknown = Object.keys(rest);
  const blank = typeof request !== "string" || request.trim() === "";
  const tooLong = typeof request === "string" && request.length > MAX_NATURAL_REQUEST;
  const badSynthesis = synthesis !== undefined && typeof synthesis !== "boolean";
  if (!blank && !tooLong && !badSynthesis && unknown.length === 0) return { request: request as string, synthesis: synthesis as boolean | undefined };
  const details = [
    ...(blank ? [{ pointer: "/request", message: "is required: a non-empty string" }] : []),
    ...(tooLong ? [{ pointer: "/request", message: `must be at most ${MAX_NATURAL_REQUEST} characters` }] : []),
    ...(badSynthesis ? [{ pointer: `/${AI_SYNTHESIS_FIELD}`, message: "must be boolean" }] : []),
    ...unknown.map((key) => ({ pointer: `/${escapeToken(key)}`, message: "is not an allowed property" })),
  ];
  throw new ManifoldError("INVALID_INPUT", "natural request body is not valid", { details });
}

async function naturalRoute(state: Served, body: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
  const { orchestrator } = state;
  if (!orchestrator.hasPlanner) throw llmUnavailable("natural mode");
  const { request, synthesis } = naturalRequestOf(body);
  // Natural mode answers in prose unless told not to (when there is something to answer with).
  const synthesise = typeof synthesis === "boolean" ? synthesis : orchestrator.hasSynthesiser;
  const result = await orchestrator.runNatural(request, runOptions(signal, synthesise));
  return result.paused ?? naturalResponse(result);
}

/** A paused run continued through the front end that made it: a further pause, or the route's answer. */
async function continueRun(
  state: Served,
  { mode, workflow: name, request, synthesise }: RunRequest,
  given: RunOptions,
): Promise<{ paused?: unknown; answer?: unknown }> {
  const { orchestrator } = state;
  // The resumed run answers as the paused request asked (its `ai_synthesis`, or natural mode's default).
  const run: RunOptions = { ...given, synthesise: synthesise && orchestrator.hasSynthesiser };
  if (mode === "custom") {
    const { paused, ...answer } = await orchestrator.runCustom(request, run);
    return { paused, answer };
  }
  if (mode === "natural") {
    const result = await orchestrator.runNatural(String(request), run);
    return result.paused === undefined ? { answer: naturalResponse(result) } : { paused: result.paused };
  }
  const found = await workflowNamed(state, name);
  if (found === undefined) throw new ManifoldError("NOT_FOUND", `${state.spec.name} has no workflow ${name ?? "(unnamed)"}`);
  const result = await orchestrator.runWorkflow(found.workflow, request, { ...run, mode: found.mode });
  return result.paused === undefined ? { answer: workflowResponse(result) } : { paused: result.paused };
}

async function resumeRun(state: Served, paused: RunRequest, resume: ResumeRun, { requestedBy, ...options }: ResumeRunOptions): Promise<unknown> {
  const { paused: again, answer } = await continueRun(state, paused, { ...options, resume });
  if (again !== undefined) return again;
  const userContext = options.requestContext?.user_context ?? {};
  let sessionId: string | undefined;
  for (const listener of state.resumedListeners) {
    try {
      const outcome = await listener({ mode: paused.mode, userContext, ...(requestedBy === undefined ? {} : { requestedBy }), answer });
      sessionId ??= outcome?.session_id;
    } catch (error) {
      state.log.warn("a listener of resumed runs failed", { error });
    }
  }
  // The client learns where the answer was kept: the spec's resume makes a session when the run named none.
  const isRecord = typeof answer === "object" && answer !== null && !Array.isArray(answer);
  return sessionId === undefined || !isRecord ? answer : { ...answer, session_id: sessionId };
}

async function runWorkflowByName(
  state: Served,
  name: string,
  inputs: unknown,
  { signal, progress, onRound, onStep: told }: RunWorkflowByNameOptions,
): Promise<Record<string, unknown>> {
  const found = await workflowNamed(state, name);
  if (found === undefined) throw new ManifoldError("NOT_FOUND", `${state.spec.name} has no workflow ${name}`);
  const onStep =
    progress === undefined && told === undefined
      ? undefined
      : (step: StepResult, finished: number, total: number): void => {
          told?.(step);
          if (progress === undefined) return;
          void Promise.resolve(
            progress({ current_step: finished, total_steps: total, step_name: step.step_id, percentage: Math.round((finished / total) * 100) }),
          ).catch(() => undefined);
        };
  const result = await state.orchestrator.runWorkflow(found.workflow, inputs, {
    ...(signal === undefined ? {} : { signal }),
    ...(onStep === undefined ? {} : { onStep }),
    ...(onRound === undefined ? {} : { onRound }),
    mode: found.mode,
  });
  if (result.paused !== undefined) {
    // A task or a chat handler cannot wait for a human: it fails, naming the checkpoint a resume finishes.
    const checkpointId = (result.paused as { body?: { checkpoint_id?: unknown } }).body?.checkpoint_id;
    throw new ManifoldError(
      "WORKFLOW_FAILED",
      `workflow ${name} paused for human approval at checkpoint ${String(checkpointId)}; POST /hitl/resume/${String(checkpointId)} once it is approved`,
    );
  }
  if (result.status !== "completed") throw workflowFailed(`workflow ${name}`, result);
  return result.outputs;
}
