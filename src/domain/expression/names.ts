import type { CallArgument } from "./ast";

/**
 * Every name an expression mentions, in first-appearance order, before it is checked. Lets a
 * caller load just these names from storage instead of a source's whole catalogue.
 */
export function namesIn(root: CallArgument): string[] {
  const names = new Set<string>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
    } else if (node && typeof node === "object") {
      const record = node as Record<string, unknown>;
      if (record.kind === "name" && typeof record.name === "string") names.add(record.name);
      for (const [key, value] of Object.entries(record).reverse()) if (key !== "position") stack.push(value);
    }
  }
  return [...names];
}
