/** The step graph: an edge `from → to` means `from` needs `to` to finish first. */

export interface Edge<Where> {
  readonly to: string;
  /** Where the edge was written (a `depends_on` entry or the first reference), for reporting. */
  readonly where: Where;
}

export type Graph<Where> = ReadonlyMap<string, readonly Edge<Where>[]>;

export interface Cycle<Where> {
  /** `a → b → a`: the first step (in `order`) again at the end. */
  readonly steps: readonly string[];
  /** Where the edge closing the cycle was written. */
  readonly where: Where;
}

/**
 * One cycle per strongly connected component that has one (Tarjan), each starting at its member that
 * comes first in `order`, so the report is stable and names steps in the order the user wrote them.
 */
export function findCycles<Where>(order: readonly string[], graph: Graph<Where>): Cycle<Where>[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;

  // Iterative, so a long chain of steps cannot overflow the call stack.
  for (const root of order) {
    if (index.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const to = edges[frame.next++]!.to;
        if (!graph.has(to)) continue;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  }

  const position = new Map(order.map((name, i) => [name, i]));
  const cycles: Cycle<Where>[] = [];
  for (const component of components) {
    const members = new Set(component);
    const start = component.reduce((a, b) => (position.get(a)! <= position.get(b)! ? a : b));
    const selfLoop = (graph.get(start) ?? []).find((e) => e.to === start);
    if (component.length === 1) {
      if (selfLoop !== undefined) cycles.push({ steps: [start, start], where: selfLoop.where });
      continue;
    }
    const found = pathBack(start, members, graph);
    if (found !== undefined) cycles.push(found);
  }
  return cycles.sort((a, b) => position.get(a.steps[0]!)! - position.get(b.steps[0]!)!);
}

/** A shortest cycle through `start` inside one component (breadth-first, edges in written order). */
function pathBack<Where>(start: string, members: ReadonlySet<string>, graph: Graph<Where>): Cycle<Where> | undefined {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    for (const edge of graph.get(node) ?? []) {
      if (!members.has(edge.to)) continue;
      if (edge.to === start) {
        const steps = [node];
        while (steps[0] !== start) steps.unshift(previous.get(steps[0]!)!);
        return { steps: [...steps, start], where: edge.where };
      }
      if (previous.has(edge.to)) continue;
      previous.set(edge.to, node);
      queue.push(edge.to);
    }
  }
  return undefined;
}

/** Every step reachable from `name` (its transitive dependencies), without `name` unless on a cycle. */
export function dependenciesOf<Where>(name: string, graph: Graph<Where>): Set<string> {
  const seen = new Set<string>();
  const queue = [name];
  for (let head = 0; head < queue.length; head++) {
    for (const edge of graph.get(queue[head]!) ?? []) {
      if (seen.has(edge.to)) continue;
      seen.add(edge.to);
      queue.push(edge.to);
    }
  }
  return seen;
}

/**
 * Steps that may end without output: those `continues` says carry on after failing, and every step
 * depending on one (directly or not), since a failure there skips it.
 */
export function skippableSteps<Where>(order: readonly string[], graph: Graph<Where>, continues: (name: string) => boolean): Set<string> {
  const result = new Map<string, boolean>();
  // Guards against a cycle (the caller rules them out, but this must terminate whatever it is given).
  const visiting = new Set<string>();
  for (const root of order) {
    // Iterative post-order: a step is decided once all its dependencies are.
    const work = [root];
    while (work.length > 0) {
      const node = work[work.length - 1]!;
      if (result.has(node)) {
        work.pop();
        continue;
      }
      visiting.add(node);
      const pending = (graph.get(node) ?? []).filter((e) => !result.has(e.to) && !visiting.has(e.to) && graph.has(e.to));
      if (pending.length > 0) {
        work.push(...pending.map((e) => e.to));
        continue;
      }
      work.pop();
      result.set(node, continues(node) || (graph.get(node) ?? []).some((e) => result.get(e.to) === true));
    }
  }
  return new Set(order.filter((name) => result.get(name) === true));
}
