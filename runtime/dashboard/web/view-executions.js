// Execution DAG: each orchestration request drawn as its step graph with per-step status and
// duration (natural mode's phases as bands), grouped by conversation (Grouped, the default) or in one
// list (Flat). A step sent round more than once (a semantic retry) lists each round's parameters.
import { ago, api, badge, duration, empty, h } from "./dom.js";
import { drawDag } from "./dag.js";

const NO_CONVERSATION = "Not in a conversation";

/** Each retried step's rounds: how each ended and what it sent. */
function rounds(item) {
  const retried = item.nodes.filter((node) => node.rounds);
  if (retried.length === 0) return null;
  return h(
    "div",
    { class: "rounds" },
    retried.map((node) =>
      h(
        "section",
        { "data-testid": "step-rounds", "data-step": node.step_id },
        h("h4", {}, `${node.step_id} · ${node.component}.${node.capability} · ${node.rounds.length} rounds`),
        node.rounds.map((round) =>
          h(
            "div",
            { class: "row small", "data-testid": "step-round", "data-round": round.round, "data-status": round.status },
            badge(round.status === "completed" ? "success" : "failed"),
            h("span", {}, `round ${round.round + 1}`),
            h("span", { class: "muted" }, `${round.attempts} call${round.attempts === 1 ? "" : "s"}`),
            round.error ? h("span", { class: "error-text" }, `${round.error.code}: ${round.error.message}`) : null,
            round.retried_by ? h("span", { class: "muted" }, `retried by ${round.retried_by}`) : null,
            h("code", { class: "mono", "data-testid": "round-parameters" }, round.parameters ?? "—"),
          ),
        ),
      ),
    ),
  );
}

function execution(item) {
  return h(
    "article",
    { class: "card", "data-testid": "execution", "data-plan": item.plan_id, "data-status": item.status },
    h(
      "div",
      { class: "row" },
      badge(item.status),
      h("span", { class: "mono" }, item.plan_id),
      h("span", {}, item.workflow ? `${item.mode} · ${item.workflow}` : item.mode),
      h("span", {}, duration(item.duration_ms)),
      h("span", { class: "muted", title: item.started_at }, ago(item.started_at)),
      item.checkpoint_id ? h("a", { href: "#/hitl", class: "small" }, `checkpoint ${item.checkpoint_id}`) : null,
      item.phases ? h("span", { class: "small", "data-testid": "phases" }, `${item.phases.length} phases`) : null,
      item.retried_steps > 0 ? h("span", { class: "small", "data-testid": "retried" }, `${item.retried_steps} retried`) : null,
      item.request_id ? h("span", { class: "muted small mono", title: "request id" }, item.request_id) : null,
      item.revision > 1 ? h("span", { class: "muted small" }, `revision ${item.revision}`) : null,
    ),
    item.request ? h("p", { class: "muted small mono" }, item.request) : null,
    item.skills
      ? h(
          "p",
          { class: "small", "data-testid": "run-skills" },
          "Shaped by ",
          item.skills.map((label) => h("span", { class: "chip", "data-skill": label }, label)),
        )
      : null,
    item.error ? h("p", { class: "error-text" }, `${item.error.code}: ${item.error.message}`) : null,
    item.nodes.length === 0 ? h("p", { class: "muted" }, "No step ran.") : h("div", { class: "dag-wrap" }, drawDag(item.nodes)),
    rounds(item),
  );
}

export default {
  id: "executions",
  title: "Execution DAG",
  persist: ["filter", "layout", "plan"],
  filters: [
    { id: "all", label: "All" },
    { id: "success", label: "Success" },
    { id: "failed", label: "Failed" },
    { id: "interrupted", label: "Interrupted" },
  ],
  controls(ctx) {
    const layout = ctx.state.layout ?? "grouped";
    return [
      // Opened for one run (a link from the Skills view): the way back to every run.
      ctx.state.plan
        ? h(
            "button",
            { type: "button", class: "filter", "data-testid": "all-runs", onclick: () => ctx.set({ plan: undefined }) },
            `Run ${ctx.state.plan} · show all`,
          )
        : null,
      h("span", { class: "separator" }),
      ...["grouped", "flat"].map((id) =>
        h(
          "button",
          { type: "button", class: "filter", "data-layout": id, "aria-pressed": String(layout === id), onclick: () => ctx.set({ layout: id }) },
          id === "grouped" ? "Grouped" : "Flat",
        ),
      ),
    ].filter(Boolean);
  },
  async load({ filter, state }) {
    const query = new URLSearchParams();
    if (filter && filter !== "all") query.set("status", filter);
    if (state.plan) query.set("plan_id", state.plan);
    return api(`/api/executions${query.size > 0 ? `?${query}` : ""}`);
  },
  notice: (data) => (data.enabled ? undefined : data.message),
  render(data, ctx) {
    if (!data.enabled) return empty("Nothing is recorded while execution records are off.");
    if (data.executions.length === 0)
      return empty(ctx.state.plan ? "No such run is recorded (it may have expired)." : "No orchestration request recorded yet.");
    if ((ctx.state.layout ?? "grouped") === "flat") return h("div", { class: "list", "data-layout": "flat" }, data.executions.map(execution));
    const groups = new Map();
    for (const item of data.executions) {
      const key = item.conversation_id ?? NO_CONVERSATION;
      groups.set(key, [...(groups.get(key) ?? []), item]);
    }
    return h(
      "div",
      { class: "list", "data-layout": "grouped" },
      [...groups].map(([key, items]) =>
        h(
          "section",
          { class: "group", "data-testid": "execution-group", "data-conversation": key },
          h(
            "h3",
            {},
            key === NO_CONVERSATION ? key : h("span", {}, "Conversation ", h("span", { class: "mono" }, key)),
            h("span", { class: "muted" }, ` · ${items.length}`),
          ),
          items.map(execution),
        ),
      ),
    );
  },
};
