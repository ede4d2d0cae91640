// HITL Interrupted: pending checkpoints. Approve and Reject are offered only where the API says
// they may be (a non_streaming checkpoint with an agent_name); otherwise they are disabled and the
// reason is shown. Approve resumes the run; its answer is shown above the list.
import { ago, api, badge, empty, h, pretty } from "./dom.js";

async function command(ctx, checkpoint, action) {
  const reason = ctx.state.reasons?.[checkpoint.checkpoint_id];
  ctx.state.busy = checkpoint.checkpoint_id;
  ctx.rerender();
  try {
    const result = await api("/api/hitl/command", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ checkpoint_id: checkpoint.checkpoint_id, action, ...(reason ? { reason } : {}) }),
    });
    ctx.state.result = { ok: true, checkpoint_id: checkpoint.checkpoint_id, action, result };
  } catch (error) {
    ctx.state.result = { ok: false, checkpoint_id: checkpoint.checkpoint_id, action, message: error.message, code: error.code };
  }
  ctx.state.busy = undefined;
  await ctx.refresh();
}

function resultPanel(result) {
  if (result === undefined) return null;
  const { checkpoint_id: id, action } = result;
  if (!result.ok)
    return h("div", { class: "result failed", "data-testid": "action-result", "data-outcome": "failed" }, `${action} of ${id} failed: ${result.message}`);
  const { resumed, resume_error: resumeError } = result.result;
  const verb = action === "approve" ? "Approved" : "Rejected";
  let outcome = "decided";
  let detail = null;
  if (resumeError) {
    outcome = "resume-failed";
    detail = h("p", {}, `The run did not resume: ${resumeError.code}: ${resumeError.message}`);
  } else if (resumed?.status === "interrupted") {
    outcome = "interrupted-again";
    detail = h("p", {}, `The run resumed and paused again at ${resumed.checkpoint_id}.`);
  } else if (resumed !== undefined) {
    outcome = "resumed";
    detail = [
      typeof resumed.response === "string" ? h("p", { "data-testid": "resumed-response" }, resumed.response) : null,
      h(
        "details",
        { open: typeof resumed.response !== "string" },
        h("summary", {}, "The run resumed; its answer"),
        h("pre", { "data-testid": "resumed-answer" }, pretty(resumed)),
      ),
    ];
  }
  return h("div", { class: "result", "data-testid": "action-result", "data-outcome": outcome }, h("strong", {}, `${verb} ${id}.`), detail);
}

function card(checkpoint, ctx) {
  const { actions } = checkpoint;
  const busy = ctx.state.busy === checkpoint.checkpoint_id;
  const disabled = !actions.enabled || busy;
  const reasons = ctx.state.reasons ?? (ctx.state.reasons = {});
  return h(
    "article",
    { class: "card", "data-testid": "checkpoint", "data-id": checkpoint.checkpoint_id, "data-type": checkpoint.type, "data-mode": checkpoint.request_mode },
    h(
      "div",
      { class: "row" },
      badge(checkpoint.type),
      h("span", { class: "mono" }, checkpoint.checkpoint_id),
      h("span", {}, checkpoint.agent_name),
      badge(checkpoint.request_mode, checkpoint.request_mode === "streaming" ? "streaming" : "non-streaming"),
      h("span", { class: "muted", title: checkpoint.created_at }, `paused ${ago(checkpoint.created_at)}`),
      h(
        "span",
        { class: "muted", title: checkpoint.expires_at },
        `then ${checkpoint.default_action} at ${new Date(checkpoint.expires_at).toLocaleTimeString()}`,
      ),
    ),
    h("p", {}, checkpoint.decision.reason),
    checkpoint.current_step
      ? h(
          "p",
          {},
          "Blocked step: ",
          h("strong", {}, checkpoint.current_step.step_id),
          checkpoint.decision.sensitive_matches.length > 0 ? ` (sensitive: ${checkpoint.decision.sensitive_matches.join(", ")})` : "",
        )
      : h(
          "p",
          {},
          `Plan of ${checkpoint.plan.steps.length} step${checkpoint.plan.steps.length === 1 ? "" : "s"}: ${checkpoint.plan.steps.map((s) => s.step_id).join(" → ")}`,
        ),
    checkpoint.resolved_parameters ? h("pre", { "data-testid": "parameters" }, pretty(checkpoint.resolved_parameters)) : null,
    checkpoint.completed_steps.length > 0 ? h("p", { class: "muted small" }, `Done before the pause: ${checkpoint.completed_steps.join(", ")}`) : null,
    checkpoint.user_context.conversation_id ? h("p", { class: "muted small" }, `Conversation ${checkpoint.user_context.conversation_id}`) : null,
    h(
      "div",
      { class: "row actions" },
      h("input", {
        type: "text",
        placeholder: "Reason (optional)",
        maxlength: "2000",
        value: reasons[checkpoint.checkpoint_id] ?? "",
        disabled,
        oninput: (event) => (reasons[checkpoint.checkpoint_id] = event.target.value),
        "aria-label": "Reason",
      }),
      h("button", { type: "button", class: "approve", "data-testid": "approve", disabled, onclick: () => command(ctx, checkpoint, "approve") }, "Approve"),
      h("button", { type: "button", class: "reject", "data-testid": "reject", disabled, onclick: () => command(ctx, checkpoint, "reject") }, "Reject"),
      actions.enabled ? null : h("span", { class: "disabled-reason", "data-testid": "disabled-reason" }, actions.reason),
    ),
  );
}

export default {
  id: "hitl",
  title: "HITL Interrupted",
  filters: [
    { id: "all", label: "All" },
    { id: "plan", label: "Plan" },
    { id: "step", label: "Step" },
    { id: "error", label: "Error" },
  ],
  async load({ filter }) {
    return api(`/api/hitl/checkpoints${filter && filter !== "all" ? `?type=${filter}` : ""}`);
  },
  render(data, ctx) {
    return h(
      "div",
      { class: "list" },
      resultPanel(ctx.state.result),
      data.checkpoints.length === 0 ? empty("No run is waiting for approval.") : data.checkpoints.map((checkpoint) => card(checkpoint, ctx)),
    );
  },
};
