/** The LLM-debug and Executions views' routes: bounded lists of summaries, and one whole record by id. */
import type { AddRoute } from "../component/index.js";
import { ManifoldError } from "../errors/index.js";
import type { Checkpoint, CheckpointStore } from "../hitl/index.js";
import type { LlmDebugStore } from "../llm/index.js";
import type { ExecutionStore } from "../orchestration/served.js";
import { executionSummary, llmSummary } from "./debug.js";
import { limitOf, oneOf, queryOf, sendValue, type RouteWrapper } from "./http.js";

export const LLM_DEBUG_OFF = "LLM debug capture is off: set MANIFOLD_LLM_DEBUG_ENABLED=true (on the agents and on the dashboard)";
export const EXECUTIONS_OFF = "Execution records are off: set MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED=true (on the agents and on the dashboard)";

export function addLlmDebugRoutes(add: AddRoute, llmDebug: LlmDebugStore | undefined, dataRoute: RouteWrapper): void {
  add(
    "GET",
    "/api/llm-debug",
    dataRoute(async (ctx) => {
      const status = oneOf(ctx, "status", ["success", "error"] as const);
      const limit = limitOf(ctx, 50, 200);
      if (llmDebug === undefined) return sendValue(ctx, { enabled: false, message: LLM_DEBUG_OFF, records: [] });
      const records = await llmDebug.list({ limit, ...(status === undefined ? {} : { status }) });
      sendValue(ctx, { enabled: true, records: records.map(llmSummary) });
    }),
  );

  add(
    "GET",
    "/api/llm-debug/:request_id",
    dataRoute(async (ctx) => {
      if (llmDebug === undefined) throw new ManifoldError("NOT_FOUND", LLM_DEBUG_OFF);
      const record = await llmDebug.get(ctx.params["request_id"] ?? "").catch((error: unknown) => {
        // A malformed id names no record: answered like an unknown one.
        if (error instanceof ManifoldError && error.code === "INVALID_INPUT") return undefined;
        throw error;
      });
      if (record === undefined) throw new ManifoldError("NOT_FOUND", "no LLM debug record with that request id");
      sendValue(ctx, record);
    }),
  );
}

/** Checkpoints by plan id, newest first, so a paused run's graph shows its blocked step and conversation. */
export async function recentCheckpoints(checkpoints: CheckpointStore): Promise<Map<string, Checkpoint>> {
  const byPlan = new Map<string, Checkpoint>();
  for (const checkpoint of (await checkpoints.list({ limit: 100 })).checkpoints) {
    if (!byPlan.has(checkpoint.plan.plan_id)) byPlan.set(checkpoint.plan.plan_id, checkpoint);
  }
  return byPlan;
}

export function addExecutionRoutes(add: AddRoute, executions: ExecutionStore | undefined, checkpoints: CheckpointStore, dataRoute: RouteWrapper): void {
  add(
    "GET",
    "/api/executions",
    dataRoute(async (ctx) => {
      const status = oneOf(ctx, "status", ["success", "failed", "interrupted"] as const);
      const limit = limitOf(ctx, 50, 200);
      const planId = queryOf(ctx, "plan_id");
      if (executions === undefined) return sendValue(ctx, { enabled: false, message: EXECUTIONS_OFF, executions: [] });
      if (planId !== undefined) {
        // One run, however old (a link from the Skills view): its graph, as the list draws it.
        const [record, byPlan] = await Promise.all([planId.length <= 128 ? executions.get(planId) : undefined, recentCheckpoints(checkpoints)]);
        const chosen = record === undefined || (status !== undefined && record.status !== status) ? [] : [record];
        return sendValue(ctx, { enabled: true, executions: chosen.map((r) => executionSummary(r, byPlan.get(r.plan_id))) });
      }
      // The store lists newest first without a status filter: read a wider window when filtering.
      const [records, byPlan] = await Promise.all([
        executions.list({ limit: status === undefined ? limit : Math.min(1000, limit * 5) }),
        recentCheckpoints(checkpoints),
      ]);
      const chosen = (status === undefined ? records : records.filter((record) => record.status === status)).slice(0, limit);
      sendValue(ctx, { enabled: true, executions: chosen.map((record) => executionSummary(record, byPlan.get(record.plan_id))) });
    }),
  );

  add(
    "GET",
    "/api/executions/:plan_id",
    dataRoute(async (ctx) => {
      if (executions === undefined) throw new ManifoldError("NOT_FOUND", EXECUTIONS_OFF);
      const record = await executions.get(ctx.params["plan_id"] ?? "");
      if (record === undefined) throw new ManifoldError("NOT_FOUND", "no execution record with that plan id");
      sendValue(ctx, record);
    }),
  );
}
