/**
 * The YAML workflow engine: a workflow manifest loaded at run time, no `manifold gen` needed. It is
 * checked by the same checker gen uses (same MF14xx codes, same positions), against the live catalog
 * (the given specs, then discovery), and runs on the same executor as every other front end.
 */
import { defaultRegistry } from "../discovery/index.js";
import type { Registry } from "../discovery/index.js";
import { ManifoldError } from "../errors/index.js";
import type { Diagnostic } from "../manifest/index.js";
import type { WorkflowSpec } from "../spec/index.js";
import { checkContextOf, readCatalog } from "./catalog.js";
import type { TokenSource } from "../outbound/index.js";
import { createOrchestrator, type Orchestrator, type OrchestratorOptions, type RunOptions, type WorkflowRunResult } from "./orchestrator.js";

/** One finding of the checker, as `manifold validate --format json` prints it. */
export type WorkflowDiagnostic = Diagnostic;

export interface WorkflowCheck {
  readonly diagnostics: readonly WorkflowDiagnostic[];
  readonly spec?: WorkflowSpec;
  /** Components the workflow names that the catalog does not hold (yet). */
  readonly missing: ReadonlySet<string>;
}

export interface WorkflowEngineOptions extends OrchestratorOptions {
  /** Runs the workflows; shares its resolver, caller, hooks and records. @defaultValue one made from these options */
  readonly orchestrator?: Orchestrator;
  /** When set, steps may only call these components (an agent's `uses`). @defaultValue any component in the catalog */
  readonly allowed?: readonly string[];
}

export interface LoadedWorkflow {
  readonly spec: WorkflowSpec;
  readonly file: string;
  /** Warnings of the check (unused input, implicit dependency…); errors make `load` throw instead. */
  readonly warnings: readonly WorkflowDiagnostic[];
  run(inputs: unknown, options?: RunOptions): Promise<WorkflowRunResult>;
}

export interface WorkflowEngine {
  readonly orchestrator: Orchestrator;
  /** Checks without throwing: every diagnostic, and the spec when there is no error. */
  check(text: string, file?: string): Promise<WorkflowCheck>;
  /** Checks and returns the runnable workflow, or throws INVALID_WORKFLOW whose details are the errors `{code, line, column, message}`. */
  load(text: string, file?: string): Promise<LoadedWorkflow>;
  run(workflow: LoadedWorkflow | WorkflowSpec, inputs: unknown, options?: RunOptions): Promise<WorkflowRunResult>;
  /** The orchestrator's (and so the caller's) token setter: runs that start from now on use the new token. */
  setToken(token: string | TokenSource | undefined): void;
  close(): Promise<void>;
}

/** INVALID_WORKFLOW listing a failed check's errors. */
export function invalidWorkflow(file: string, diagnostics: readonly WorkflowDiagnostic[]): ManifoldError {
  const errors = diagnostics.filter((d) => d.severity === "error");
  const first = errors[0];
  const summary =
    first === undefined
      ? "it failed its checks"
      : `${first.code} at ${first.line}:${first.column}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ""}`;
  return new ManifoldError("INVALID_WORKFLOW", `workflow ${file} is not valid: ${summary}`, {
    details: errors.map(({ code, line, column, message }) => ({ pointer: "", code, line, column, message })),
  });
}

export function createWorkflowEngine(options: WorkflowEngineOptions = {}): WorkflowEngine {
  const { components = [], allowed } = options;
  const orchestrator = options.orchestrator ?? createOrchestrator(options);
  const owned = options.orchestrator === undefined;
  const allowedSet = allowed === undefined ? undefined : new Set(allowed);
  let registry: Registry | false | undefined = options.registry;

  const check = async (text: string, file = "workflow.yaml"): Promise<WorkflowCheck> => {
    if (typeof text !== "string") throw new ManifoldError("INVALID_WORKFLOW", "a workflow is YAML text");
    // The loader (yaml, ajv meta-schema) is loaded on first use: an agent without YAML workflows never pays for it.
    const { loadWorkflowText } = await import("../manifest/index.js");
    const catalog = await readCatalog((registry ??= defaultRegistry()), components);
    const context = checkContextOf(catalog, allowedSet);
    const { diagnostics, spec } = loadWorkflowText(file, text, context);
    return { diagnostics, ...(spec === undefined ? {} : { spec }), missing: context.missing };
  };

  const run = (workflow: LoadedWorkflow | WorkflowSpec, inputs: unknown, runOptions: RunOptions = {}): Promise<WorkflowRunResult> => {
    const spec = "spec" in workflow ? workflow.spec : workflow;
    return orchestrator.runWorkflow(spec, inputs, { ...runOptions, mode: "yaml" });
  };

  return {
    orchestrator,
    check,
    load: async (text, file = "workflow.yaml") => {
      const { diagnostics, spec } = await check(text, file);
      if (spec === undefined) throw invalidWorkflow(file, diagnostics);
      const loaded: LoadedWorkflow = {
        spec,
        file,
        warnings: diagnostics.filter((d) => d.severity === "warning"),
        run: (inputs, runOptions) => run(loaded, inputs, runOptions),
      };
      return loaded;
    },
    run,
    setToken: (token) => orchestrator.setToken(token),
    close: async () => {
      if (owned) await orchestrator.close();
    },
  };
}
