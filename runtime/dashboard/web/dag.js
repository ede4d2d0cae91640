// An execution's step graph as SVG: a column per depth (a step sits one column right of its
// deepest dependency), an edge per dependency, each node coloured by its status with its duration.
import { duration, svg } from "./dom.js";

const W = 236;
const H = 58;
const GAP_X = 46;
const GAP_Y = 14;

function depths(nodes) {
  const byId = new Map(nodes.map((node) => [node.step_id, node]));
  const depth = new Map();
  const visit = (id, path) => {
    if (depth.has(id)) return depth.get(id);
    if (path.has(id)) return 0; // a cycle cannot run, but must not hang the page either
    path.add(id);
    let d = 0;
    for (const dep of byId.get(id)?.depends_on ?? []) if (byId.has(dep)) d = Math.max(d, visit(dep, path) + 1);
    path.delete(id);
    depth.set(id, d);
    return d;
  };
  for (const node of nodes) visit(node.step_id, new Set());
  return depth;
}

const clip = (text, max) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

const LABEL = { completed: "completed", failed: "failed", skipped: "skipped", waiting_approval: "waiting approval", not_run: "not run" };

export function drawDag(nodes) {
  const depth = depths(nodes);
  const columns = [];
  const place = new Map();
  for (const node of nodes) {
    const d = depth.get(node.step_id) ?? 0;
    columns[d] ??= [];
    place.set(node.step_id, { x: d * (W + GAP_X), y: columns[d].length * (H + GAP_Y) });
    columns[d].push(node);
  }
  const rows = Math.max(1, ...columns.map((column) => column?.length ?? 0));
  const width = Math.max(1, columns.length) * (W + GAP_X) - GAP_X + 2;
  const height = rows * (H + GAP_Y) - GAP_Y + 2;
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
        class: `node status-${node.status}`,
        transform: `translate(${x + 1},${y + 1})`,
        "data-testid": "dag-node",
        "data-step": node.step_id,
        "data-status": node.status,
      },
      svg(
        "title",
        {},
        `${node.step_id}: ${node.component}.${node.capability}, ${LABEL[node.status] ?? node.status}${timing}${node.error ? `\n${node.error.code}: ${node.error.message}` : ""}`,
      ),
      svg("rect", { width: W, height: H, rx: 6 }),
      svg("text", { x: 10, y: 18, class: "step" }, node.step_id),
      svg("text", { x: 10, y: 34, class: "target" }, clip(`${node.component}.${node.capability}`, 36)),
      svg("text", { x: 10, y: 50, class: "state" }, `${LABEL[node.status] ?? node.status}${timing}`),
    );
  });
  return svg("svg", { class: "dag", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "step graph" }, edges, boxes);
}
