// An execution's step graph as SVG: a column per depth (a step sits one column right of its
// deepest dependency), an edge per dependency, each node coloured by its status with its duration.
// Natural mode's phases are bands of columns, left to right, each labelled; a step sent round more
// than once (a semantic retry) says how many rounds.
import { duration, svg } from "./dom.js";

const W = 236;
const H = 58;
const GAP_X = 46;
const GAP_Y = 14;
const BAND_LABEL = 24;

/** Depths within each phase: a dependency in an earlier phase is drawn as an edge, it does not push the step right. */
function depths(nodes) {
  const byId = new Map(nodes.map((node) => [node.step_id, node]));
  const samePhase = (a, b) => (a.phase ?? 1) === (b.phase ?? 1);
  const depth = new Map();
  const visit = (id, path) => {
    if (depth.has(id)) return depth.get(id);
    if (path.has(id)) return 0; // a cycle cannot run, but must not hang the page either
    path.add(id);
    let d = 0;
    const node = byId.get(id);
    for (const dep of node?.depends_on ?? []) if (byId.has(dep) && samePhase(node, byId.get(dep))) d = Math.max(d, visit(dep, path) + 1);
    path.delete(id);
    depth.set(id, d);
    return d;
  };
  for (const node of nodes) visit(node.step_id, new Set());
  return depth;
}

const clip = (text, max) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

const LABEL = { completed: "completed", failed: "failed", skipped: "skipped", waiting_approval: "waiting approval", not_run: "not run" };

/** The first column of each phase's band: the phases in order, each as wide as its deepest step. */
function bands(nodes, depth) {
  const widths = new Map();
  for (const node of nodes) widths.set(node.phase ?? 1, Math.max(widths.get(node.phase ?? 1) ?? 0, (depth.get(node.step_id) ?? 0) + 1));
  const start = new Map();
  let column = 0;
  for (const phase of [...widths.keys()].sort((a, b) => a - b)) {
    start.set(phase, { column, width: widths.get(phase) });
    column += widths.get(phase);
  }
  return start;
}

const roundsText = (node) => (node.rounds ? ` · ${node.rounds.length} rounds` : "");

function roundsTitle(node) {
  if (!node.rounds) return node.parameters ? `\nsent ${node.parameters}` : "";
  return node.rounds
    .map((r) => `\nround ${r.round + 1}: ${r.status}${r.error ? ` (${r.error.code})` : ""}${r.parameters ? ` with ${r.parameters}` : ""}`)
    .join("");
}

export function drawDag(nodes) {
  const depth = depths(nodes);
  const start = bands(nodes, depth);
  const phased = start.size > 1;
  const top = phased ? BAND_LABEL : 0;
  const columns = [];
  const place = new Map();
  for (const node of nodes) {
    const d = start.get(node.phase ?? 1).column + (depth.get(node.step_id) ?? 0);
    columns[d] ??= [];
    place.set(node.step_id, { x: d * (W + GAP_X), y: top + columns[d].length * (H + GAP_Y) });
    columns[d].push(node);
  }
  const rows = Math.max(1, ...columns.map((column) => column?.length ?? 0));
  const width = Math.max(1, columns.length) * (W + GAP_X) - GAP_X + 2;
  const height = top + rows * (H + GAP_Y) - GAP_Y + 2;
  const labels = phased
    ? [...start].map(([phase, { column, width: span }]) =>
        svg(
          "g",
          { class: "phase-band", "data-testid": "dag-phase", "data-phase": phase },
          svg("rect", { x: column * (W + GAP_X), y: 0, width: span * (W + GAP_X) - GAP_X + 2, height: height, rx: 8 }),
          svg("text", { x: column * (W + GAP_X) + 8, y: 16, class: "phase-label" }, `Phase ${phase}`),
        ),
      )
    : [];
  const edges = [];
  for (const node of nodes) {
    const to = place.get(node.step_id);
    for (const dep of node.depends_on) {
      const from = place.get(dep);
      if (from === undefined) continue;
      const [x1, y1, x2, y2] = [from.x + W + 1, from.y + H / 2 + 1, to.x + 1, to.y + H / 2 + 1];
      const mid = (x1 + x2) / 2;
      edges.push(svg("path", { class: "edge", d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`, "data-from": dep, "data-to": node.step_id }));
    }
  }
  const boxes = nodes.map((node) => {
    const { x, y } = place.get(node.step_id);
    const timing = node.duration_ms === undefined ? "" : ` · ${duration(node.duration_ms)}`;
    return svg(
      "g",
      {
        class: `node status-${node.status}${node.rounds ? " retried" : ""}`,
        transform: `translate(${x + 1},${y + 1})`,
        "data-testid": "dag-node",
        "data-step": node.step_id,
        "data-status": node.status,
        "data-phase": node.phase ?? 1,
        "data-rounds": node.rounds?.length ?? 1,
      },
      svg(
        "title",
        {},
        `${node.step_id}: ${node.component}.${node.capability}, ${LABEL[node.status] ?? node.status}${timing}${node.error ? `\n${node.error.code}: ${node.error.message}` : ""}${roundsTitle(node)}`,
      ),
      svg("rect", { width: W, height: H, rx: 6 }),
      svg("text", { x: 10, y: 18, class: "step" }, node.step_id),
      svg("text", { x: 10, y: 34, class: "target" }, clip(`${node.component}.${node.capability}`, 36)),
      svg("text", { x: 10, y: 50, class: "state" }, `${LABEL[node.status] ?? node.status}${timing}${roundsText(node)}`),
    );
  });
  return svg("svg", { class: "dag", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "step graph" }, labels, edges, boxes);
}
