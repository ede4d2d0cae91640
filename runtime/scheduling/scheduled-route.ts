/**
 * The agent side of scheduled execution: `POST /api/v1/scheduled`, where the scheduler's executor
 * delivers a due schedule. The agent's typed `scheduled` handler answers it; without one the
 * instruction goes to natural mode, which needs a language model.
 */
import { compileValidator, jsonRoute, type ComponentExtension } from "../component/index.js";
import { ManifoldError } from "../errors/index.js";
import { llmUnavailable } from "../llm/index.js";
import type { Orchestrator } from "../orchestration/index.js";
import { SCHEDULED_PATH, SCHEDULED_REQUEST_SCHEMA, type ScheduledHandler, type ScheduledRequest, type ScheduledResponse } from "./wire.js";

/** Without a handler, a run is the instruction in natural mode: planned, run and synthesised. */
async function runInstruction(orchestrator: Orchestrator, { instruction, input }: ScheduledRequest, signal: AbortSignal): Promise<string> {
  const request = Object.keys(input).length === 0 ? instruction : `${instruction}\n\nInput: ${JSON.stringify(input)}`;
  const result = await orchestrator.runNatural(request, { signal, synthesise: orchestrator.hasSynthesiser });
  if (result.status === "interrupted") throw new ManifoldError("ABORTED", "the scheduled run was interrupted");
  return typeof result.synthesis === "string"
    ? result.synthesis
    : JSON.stringify(result.steps.map((s) => ({ step_id: s.step_id, status: s.status, output: s.output })));
}

export function createScheduledExtension(handler: ScheduledHandler | undefined, orchestrator?: Orchestrator): ComponentExtension {
  if (handler !== undefined && typeof handler !== "function") throw new TypeError("scheduled must be a function");
  const validate = compileValidator(SCHEDULED_REQUEST_SCHEMA);
  return {
    name: "scheduled",
    routes(add, { bodyLimit }) {
      add(
        "POST",
        SCHEDULED_PATH,
        jsonRoute(
          async (body, { signal, requestId }): Promise<ScheduledResponse> => {
            const details = validate(body);
            if (details !== undefined) throw new ManifoldError("INVALID_INPUT", "scheduled request body is not valid", { details });
            const request = body as unknown as ScheduledRequest;
            if (handler === undefined) {
              if (orchestrator?.hasPlanner !== true) throw llmUnavailable("a scheduled run without a scheduled handler (pass serve({ scheduled }))");
              return { success: true, data: { response: await runInstruction(orchestrator, request, signal), request_id: requestId } };
            }
            const response = await handler(request, { signal, requestId });
            if (typeof response !== "string") throw new TypeError("a scheduled handler must return a string");
            return { success: true, data: { response, request_id: requestId } };
          },
          { bodyLimit },
        ),
      );
    },
  };
}
