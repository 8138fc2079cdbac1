/**
 * Would defining metric `name` with references `directRefs` close a cycle in `graph`
 * (metric name -> metrics it references)? Returns the shortest cycle through `name`,
 * such as ["a", "b", "a"] or ["a", "a"] for a self reference, else null.
 * `graph`'s own entry for `name`, if any, is replaced by `directRefs`. Cycles that do
 * not pass through `name` are ignored: they existed before and are not this change's
 * doing. Works for derived fields too. Breadth-first and iterative, so neither long
 * chains nor large graphs can overflow the stack.
 */
export function findMetricCycle(
  name: string,
  directRefs: readonly string[],
  graph: ReadonlyMap<string, readonly string[]>,
): string[] | null {
  const referencesOf = (node: string): readonly string[] => (node === name ? directRefs : graph.get(node) ?? []);
  const cameFrom = new Map<string, string>();
  const queue: string[] = [name];
  for (let head = 0; head < queue.length; head += 1) {
    const current = queue[head];
    for (const next of referencesOf(current)) {
      if (next === name) return pathBack(current, name, cameFrom);
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, current);
      queue.push(next);
    }
  }
  return null;
}

/** Rebuilds name -> ... -> last -> name from the breadth-first parent links. */
function pathBack(last: string, name: string, cameFrom: ReadonlyMap<string, string>): string[] {
  const reversed = [name, last];
  let node = last;
  while (node !== name) {
    node = cameFrom.get(node) ?? name;
    reversed.push(node);
  }
  return reversed.reverse();
}
