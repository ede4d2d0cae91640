// LLM Debug: every language-model call, by request: what it was for, prompt (and its size as sent),
// response, tokens and duration. Grouped puts a resumed or child request under the request it
// continued (original_request_id).
import { ago, api, badge, duration, empty, h } from "./dom.js";

const STATUS = { success: "success", errors: "error" };

// What each call was for, in words; a type not listed here (a newer runtime's) is shown as recorded.
const LABELS = {
  plan_generation: "plan",
  continuation_plan: "continuation plan",
  error_analysis: "error analysis",
  micro_resolution: "micro-resolution",
  tiered_selection: "capability selection",
  result_distillation: "distillation",
  synthesis: "synthesis",
  synthesis_streaming: "synthesis (streaming)",
  chat: "chat",
  skill_selection: "skill selection",
  user_memory_extraction: "fact extraction",
  user_memory_summary: "profile summary",
  event_summarization: "run summary",
  activity_compaction: "digest compaction",
  activity_compaction_incremental: "digest update",
  reflection: "reflection",
};

const label = (type) => (Object.hasOwn(LABELS, type) ? LABELS[type] : type);

/** "700 B", "12.3 KB", "2.0 MB" (1 KB = 1024 bytes, as the budgets are set). */
function size(bytes) {
  if (typeof bytes !== "number" || !Number.isFinite(bytes) || bytes < 0) return "";
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

const sized = (bytes) => typeof bytes === "number" && Number.isFinite(bytes) && bytes >= 0;

function interaction(item, index) {
  return h(
    "div",
    { class: "interaction", "data-testid": "interaction", "data-type": item.type },
    h(
      "div",
      { class: "row" },
      h("strong", { title: item.type }, `${index + 1}. ${label(item.type)}`),
      badge(item.success ? "success" : "error"),
      h("span", { class: "muted" }, item.model),
      sized(item.prompt_bytes)
        ? h(
            "span",
            { class: "size", "data-testid": "prompt-bytes", "data-bytes": item.prompt_bytes, title: `${item.prompt_bytes} bytes as sent` },
            `${size(item.prompt_bytes)} prompt`,
          )
        : null,
      h("span", { "data-testid": "tokens" }, `${item.prompt_tokens} + ${item.completion_tokens} = ${item.total_tokens} tokens`),
      h("span", {}, duration(item.duration_ms)),
      item.attempt > 1 ? h("span", { class: "muted" }, `attempt ${item.attempt}`) : null,
    ),
    item.error ? h("p", { class: "error-text" }, `${item.error.code}: ${item.error.message}`) : null,
    h(
      "div",
      { class: "pair" },
      h("div", {}, h("h4", {}, "Prompt"), h("pre", { "data-testid": "prompt" }, item.prompt)),
      h("div", {}, h("h4", {}, "Response"), h("pre", { "data-testid": "response" }, item.response || "—")),
    ),
    item.preview_cut ? h("p", { class: "muted small" }, "Shortened here; “Full record” shows the whole text.") : null,
  );
}

function record(item, ctx) {
  const open = ctx.state.open ?? (ctx.state.open = new Set());
  const full = ctx.state.full?.[item.request_id];
  const shown = full ?? item;
  return h(
    "details",
    {
      class: "card",
      "data-testid": "llm-record",
      "data-request": item.request_id,
      "data-status": item.status,
      open: open.has(item.request_id),
      ontoggle: (event) => (event.target.open ? open.add(item.request_id) : open.delete(item.request_id)),
    },
    h(
      "summary",
      {},
      badge(item.status),
      h("span", { class: "mono" }, item.request_id),
      h("span", {}, `${item.interaction_count} call${item.interaction_count === 1 ? "" : "s"}`),
      h("span", {}, `${item.total_tokens} tokens`),
      sized(item.prompt_bytes) && item.prompt_bytes > 0
        ? h(
            "span",
            { class: "size", "data-testid": "prompt-total", "data-bytes": item.prompt_bytes, title: `${item.prompt_bytes} bytes of prompts` },
            `${size(item.prompt_bytes)} prompted`,
          )
        : null,
      h("span", {}, duration(item.duration_ms)),
      h("span", { class: "muted" }, item.source_components.join(", ")),
      h("span", { class: "muted", title: item.updated_at }, ago(item.updated_at)),
      item.final && item.final.outcome !== "completed"
        ? h(
            "span",
            { class: "small", "data-testid": "final", "data-outcome": item.final.outcome },
            item.final.outcome === "needs_input" ? "needs input" : `answered ${item.final.http_status}${item.final.code ? ` ${item.final.code}` : ""}`,
          )
        : null,
    ),
    item.original_request_id !== item.request_id ? h("p", { class: "muted small" }, `Continues ${item.original_request_id}`) : null,
    full === undefined
      ? h(
          "button",
          {
            type: "button",
            class: "link",
            onclick: async () => {
              const whole = await api(`/api/llm-debug/${encodeURIComponent(item.request_id)}`);
              ctx.state.full = { ...ctx.state.full, [item.request_id]: whole };
              ctx.rerender();
            },
          },
          "Full record",
        )
      : null,
    shown.interactions.map(interaction),
  );
}

export default {
  id: "llm",
  title: "LLM Debug",
  filters: [
    { id: "all", label: "All" },
    { id: "success", label: "Success" },
    { id: "errors", label: "Errors" },
    { id: "grouped", label: "Grouped" },
  ],
  async load({ filter }) {
    const status = STATUS[filter];
    return api(`/api/llm-debug${status ? `?status=${status}` : ""}`);
  },
  notice: (data) => (data.enabled ? undefined : data.message),
  render(data, ctx) {
    if (!data.enabled) return empty("Nothing is recorded while capture is off.");
    if (data.records.length === 0) return empty("No language-model call recorded yet: natural mode, ai_synthesis and chat without a handler make them.");
    if (ctx.filter !== "grouped")
      return h(
        "div",
        { class: "list" },
        data.records.map((item) => record(item, ctx)),
      );
    const groups = new Map();
    for (const item of data.records) {
      const list = groups.get(item.original_request_id) ?? [];
      list.push(item);
      groups.set(item.original_request_id, list);
    }
    return h(
      "div",
      { class: "list" },
      [...groups].map(([original, items]) =>
        h(
          "section",
          { class: "group", "data-testid": "llm-group", "data-original": original },
          h("h3", {}, h("span", { class: "mono" }, original), h("span", { class: "muted" }, ` · ${items.length} request${items.length === 1 ? "" : "s"}`)),
          items.map((item) => record(item, ctx)),
        ),
      ),
    );
  },
};
