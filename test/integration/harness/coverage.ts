import { ACCESS_RULES, OBJECT_PERMISSIONS } from "./access";
import type { Contract } from "./contract";
import { deref, type JsonSchema, type OpenApiDocument, type Operation } from "./document";
import { FIXTURES, REFERENCE_MEMBERS, REFERENCE_NAME } from "./fixtures";

/**
 * What the conformance suites need to know about each documented operation, and what is
 * missing. Each gap names the operation and what its author must add; the suites fail on any.
 */
export function fixtureGaps(operations: readonly Operation[]): string[] {
  const gaps: string[] = [];
  for (const op of operations) {
    const entry = FIXTURES[op.template];
    if (op.pathParams.length > 0 && !entry?.params) {
      gaps.push(
        `${op.key}: no fixture for its path parameters: add FIXTURES["${op.template}"].params in test/integration/harness/fixtures.ts, ` +
          `making a real object through the API and answering {${op.pathParams.join(", ")}}`,
      );
    }
    if (op.requestBody && !entry?.bodies?.[op.method]) {
      gaps.push(`${op.key}: no valid body: add FIXTURES["${op.template}"].bodies.${op.method} in test/integration/harness/fixtures.ts (fresh names on every call)`);
    }
    const required = op.parameters.filter((p) => p.in === "query" && p.required).map((p) => p.name);
    if (required.length > 0 && !entry?.query?.[op.method]) {
      gaps.push(`${op.key}: requires query members ${required.join(", ")}: add FIXTURES["${op.template}"].query.${op.method} in test/integration/harness/fixtures.ts (valid values)`);
    }
  }
  return gaps;
}

export function accessGaps(operations: readonly Operation[]): string[] {
  const gaps: string[] = [];
  for (const op of operations) {
    if (!(ACCESS_RULES as readonly string[]).includes(op.access)) {
      gaps.push(`${op.key}: x-access "${op.access}" is unknown to the privilege matrix: teach expectedOutcome in test/integration/harness/access.ts`);
    }
    if (op.objectPermission !== undefined && !OBJECT_PERMISSIONS[op.objectPermission]) {
      gaps.push(`${op.key}: x-object-permission "${op.objectPermission}" is unknown: add it to OBJECT_PERMISSIONS in test/integration/harness/access.ts`);
    }
  }
  return gaps;
}

/**
 * Paths of the body members that name other objects (`accountId`, `content[].principalId`,
 * `origin.derivedOrigin.calendarId`), across every branch of the body schema. Read-only members
 * are skipped: a client does not send them.
 */
export function referenceMemberPaths(doc: OpenApiDocument, schema: JsonSchema): string[] {
  const found = new Set<string>();
  const seen = new Set<unknown>();
  const walk = (node: JsonSchema, path: string, depth: number) => {
    const resolved = deref(doc, node);
    if (typeof resolved !== "object" || depth > 12 || seen.has(resolved)) return;
    seen.add(resolved);
    for (const key of ["allOf", "anyOf", "oneOf"]) for (const branch of resolved[key] ?? []) walk(branch, path, depth + 1);
    if (resolved.items) walk(resolved.items, `${path}[]`, depth + 1);
    for (const [name, member] of Object.entries<JsonSchema>(resolved.properties ?? {})) {
      const memberSchema = deref(doc, member);
      if (typeof memberSchema === "object" && memberSchema.readOnly === true) continue;
      const memberPath = path ? `${path}.${name}` : name;
      if (REFERENCE_NAME.test(name)) found.add(memberPath);
      walk(member, memberPath, depth + 1);
    }
    seen.delete(resolved);
  };
  walk(schema, "", 0);
  return [...found].sort();
}

export const lastMemberName = (path: string) => path.split(".").pop()!.replace(/\[\]$/, "");

/** Whether the document serves anything under a collection (a resource that exists yet). */
export const isMounted = (contract: Contract, collection: string) => Object.keys(contract.doc.paths).some((p) => p === collection || p.startsWith(`${collection}/`));

export function referenceGaps(contract: Contract): string[] {
  const gaps: string[] = [];
  for (const op of contract.operations) {
    if (!op.requestBody) continue;
    for (const path of referenceMemberPaths(contract.doc, op.requestBody.schema)) {
      const name = lastMemberName(path);
      const target = REFERENCE_MEMBERS[name];
      if (!target) {
        gaps.push(
          `${op.key}: body member ${path} looks like a reference to another object: add REFERENCE_MEMBERS.${name} in test/integration/harness/fixtures.ts ` +
            `(the collection it names and how to get a real id of it), or say why it is not one (notAReference)`,
        );
        continue;
      }
      if (target.notAReference) continue;
      if (target.collection && isMounted(contract, target.collection) && !target.value) {
        gaps.push(`${op.key}: ${target.collection} is now served, so body member ${path} can name a real object: give REFERENCE_MEMBERS.${name} its value(world) in test/integration/harness/fixtures.ts`);
      }
    }
  }
  return gaps;
}
