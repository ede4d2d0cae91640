// Execution DAG: each orchestration request drawn as its step graph with per-step status and
// duration, grouped by conversation (Grouped, the default) or in one list (Flat).
import { ago, api, badge, duration, empty, h } from "./dom.js";
import { drawDag } from "./dag.js";

const NO_CONVERSATION = "Not in a conversation";

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
    ),
    item.request ? h("p", { class: "muted small mono" }, item.request) : null,
    item.error ? h("p", { class: "error-text" }, `${item.error.code}: ${item.error.message}`) : null,
    item.nodes.length === 0 ? h("p", { class: "muted" }, "No step ran.") : h("div", { class: "dag-wrap" }, drawDag(item.nodes)),
  );
}

export default {
  id: "executions",
  title: "Execution DAG",
  persist: ["filter", "layout"],
  filters: [
    { id: "all", label: "All" },
    { id: "success", label: "Success" },
    { id: "failed", label: "Failed" },
    { id: "interrupted", label: "Interrupted" },
  ],
  controls(ctx) {
    const layout = ctx.state.layout ?? "grouped";
    return [
      h("span", { class: "separator" }),
      ...["grouped", "flat"].map((id) =>
        h(
          "button",
          { type: "button", class: "filter", "data-layout": id, "aria-pressed": String(layout === id), onclick: () => ctx.set({ layout: id }) },
          id === "grouped" ? "Grouped" : "Flat",
        ),
      ),
    ];
  },
  async load({ filter }) {
    return api(`/api/executions${filter && filter !== "all" ? `?status=${filter}` : ""}`);
  },
  notice: (data) => (data.enabled ? undefined : data.message),
  render(data, ctx) {
    if (!data.enabled) return empty("Nothing is recorded while execution records are off.");
    if (data.executions.length === 0) return empty("No orchestration request recorded yet.");
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
