/**
 * The agent side of scheduled execution: `POST /api/v1/scheduled`, where the scheduler's executor
 * delivers a due schedule. The agent's typed `scheduled` handler answers it; without one the
 * instruction goes to natural mode, which needs a language model.
 */
import { compileValidator, jsonRoute, type ComponentExtension } from "../component/index.js";
import { ManifoldError } from "../errors/index.js";
import { SCHEDULED_PATH, SCHEDULED_REQUEST_SCHEMA, type ScheduledHandler, type ScheduledRequest, type ScheduledResponse } from "./wire.js";

const LLM_VARIABLES = "MANIFOLD_LLM_BASE_URL / MANIFOLD_LLM_API_KEY / MANIFOLD_LLM_MODEL (or OPENAI_API_KEY)";

export function createScheduledExtension(handler: ScheduledHandler | undefined): ComponentExtension {
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
            if (handler === undefined) {
              throw new ManifoldError(
                "LLM_UNAVAILABLE",
                `no scheduled handler was given and natural mode has no language model: pass serve({ scheduled }) or set ${LLM_VARIABLES}`,
              );
            }
            const response = await handler(body as unknown as ScheduledRequest, { signal, requestId });
            if (typeof response !== "string") throw new TypeError("a scheduled handler must return a string");
            return { success: true, data: { response, request_id: requestId } };
          },
          { bodyLimit },
        ),
      );
    },
  };
}
