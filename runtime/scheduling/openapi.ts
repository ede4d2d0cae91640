import { addErrorEnvelope, ERROR_RESPONSE as ERROR, jsonContent as json, schemaRef as ref, type OpenApiParts } from "../spec/index.js";
import type { AgentSpec } from "../spec/index.js";
import { SCHEDULED_PATH, scheduledRequestSchema } from "./wire.js";

/** `POST /api/v1/scheduled`, tagged `scheduled`. */
export function addScheduledPaths(agent: AgentSpec, { paths, schemas }: OpenApiParts): void {
  if (agent.scheduled !== true) return;
  addErrorEnvelope(schemas);
  schemas["ScheduledRequest"] = scheduledRequestSchema(agent.scheduledInput, "openapi-3.0");
  schemas["ScheduledResponse"] = {
    type: "object",
    properties: {
      success: { type: "boolean", enum: [true] },
      status: { type: "string", enum: ["filtered"], description: "Present when an application filter skipped the run" },
      data: {
        type: "object",
        properties: { response: { type: "string" }, request_id: { type: "string" }, reason: { type: "string" } },
        required: ["response", "request_id"],
      },
    },
    required: ["success", "data"],
  };
  paths[SCHEDULED_PATH] = {
    post: {
      operationId: "runScheduled",
      summary: "Run a due schedule (called by the scheduler's executor)",
      tags: ["scheduled"],
      requestBody: { required: true, content: json(ref("ScheduledRequest")) },
      responses: { "200": { description: "The run's answer", content: json(ref("ScheduledResponse")) }, "400": ERROR, "500": ERROR, "503": ERROR },
    },
  };
}
