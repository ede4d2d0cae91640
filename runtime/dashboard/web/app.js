// The dashboard's shell: hash routing between the six views, the filter bar, and live refresh by
// polling the open view's endpoint (every `poll_ms` from /api/config). A view re-renders only when
// its data changed, and waits while the user is typing in it.
import { api, h } from "./dom.js";
import executions from "./view-executions.js";
import hitl from "./view-hitl.js";
import llm from "./view-llm.js";
import memory from "./view-memory.js";
import registry from "./view-registry.js";
import skills from "./view-skills.js";

const VIEWS = [registry, llm, hitl, executions, skills, memory];
const byId = new Map(VIEWS.map((view) => [view.id, view]));

const $ = (id) => document.getElementById(id);
const states = new Map(VIEWS.map((view) => [view.id, { filter: view.filters?.[0]?.id }]));
let config = { poll_ms: 2000, stores: {} };
let current;
let timer;
let generation = 0;
let lastJson = "";

function route() {
  const [path, query = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const view = byId.get(path) ?? registry;
  const state = states.get(view.id);
  const params = new URLSearchParams(query);
  for (const [key, value] of params) state[key] = value;
  return view;
}

/** The hash mirrors the view and its filter, so a link opens the same view. */
function remember(view) {
  const state = states.get(view.id);
  const params = new URLSearchParams();
  for (const key of view.persist ?? ["filter"]) if (state[key] !== undefined && state[key] !== "") params.set(key, state[key]);
  const hash = `#/${view.id}${params.size > 0 ? `?${params}` : ""}`;
  if (location.hash !== hash) history.replaceState(null, "", hash);
}

function context(view) {
  const state = states.get(view.id);
  return {
    config,
    state,
    filter: state.filter,
    /** Change state and reload at once (a filter, a selection). */
    set(changes) {
      Object.assign(state, changes);
      remember(view);
      renderFilters(view);
      void tick(true);
    },
    /** Re-render from the last data without asking the server (a local toggle). */
    rerender() {
      void tick(true, false);
    },
    refresh: () => tick(true),
  };
}

function renderFilters(view) {
  const ctx = context(view);
  const bar = $("filters");
  bar.replaceChildren(
    ...(view.filters ?? []).map((filter) =>
      h(
        "button",
        {
          type: "button",
          class: "filter",
          "data-filter": filter.id,
          "aria-pressed": String(ctx.filter === filter.id),
          onclick: () => ctx.set({ filter: filter.id }),
        },
        filter.label,
      ),
    ),
    ...(view.controls?.(ctx) ?? []),
  );
}

let lastData;

async function tick(force = false, reload = true) {
  clearTimeout(timer);
  const mine = ++generation;
  const view = current;
  const ctx = context(view);
  const root = $("view");
  try {
    const data = reload || lastData === undefined ? await view.load(ctx) : lastData;
    if (mine !== generation) return; // a newer tick (a filter click) owns the page now
    const json = JSON.stringify(data);
    // A user typing (a reason, a user id) is not interrupted by a refresh; the next one catches up.
    const typing = document.querySelector("main").contains(document.activeElement) && /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
    if ((force || json !== lastJson) && !(typing && !force)) {
      lastData = data;
      lastJson = json;
      const notice = view.notice?.(data, ctx);
      $("notice").hidden = notice === undefined;
      $("notice").textContent = notice ?? "";
      root.replaceChildren(view.render(data, ctx));
      // Controls drawn from data (an agent per button) follow it.
      if (view.controls !== undefined) renderFilters(view);
      root.dataset.loaded = `${view.id}:${ctx.filter ?? ""}`;
    }
    $("status").textContent = `Updated ${new Date().toLocaleTimeString()}`;
    $("status").classList.remove("error");
  } catch (error) {
    if (mine !== generation) return;
    $("status").textContent = `Refresh failed: ${error.message}`;
    $("status").classList.add("error");
  }
  if (mine === generation) timer = setTimeout(() => void tick(), config.poll_ms);
}

function open() {
  current = route();
  lastJson = "";
  lastData = undefined;
  for (const link of document.querySelectorAll("#tabs [data-tab]")) link.setAttribute("aria-current", String(link.dataset.tab === current.id));
  $("view-title").textContent = current.title;
  document.title = `${current.title} · Manifold dashboard`;
  $("view").replaceChildren(h("p", { class: "muted" }, "Loading…"));
  delete $("view").dataset.loaded;
  remember(current);
  renderFilters(current);
  void tick(true);
}

async function start() {
  try {
    config = await api("/api/config");
  } catch (error) {
    $("status").textContent = `Could not read the dashboard's settings: ${error.message}`;
  }
  // Without MANIFOLD_REGISTRY_KEY any process that reaches the store can register under any name: said on every view.
  if (config.registry && !config.registry.signed) {
    $("registry-banner").textContent = config.registry.message;
    $("registry-banner").hidden = false;
  }
  if (config.trace_ui_url) {
    const link = $("trace-link");
    link.href = config.trace_ui_url;
    link.hidden = false;
  }
  window.addEventListener("hashchange", open);
  open();
}

void start();
