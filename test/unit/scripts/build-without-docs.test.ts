import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript module of the build, without types.
import { withoutDocumentation } from "../../../scripts/build-without-docs.mjs";

/** The deploy build leaves out what only the OpenAPI document reads (scripts/build-without-docs.mjs), and nothing else. */
describe("the deploy build without documentation", () => {
  it("removes descriptions, summaries and examples, and keeps schemas, parameters and statuses", () => {
    const source = `
      const Body = z.strictObject({ name: z.string(), description: z.string().optional() })
        .openapi("Body", { description: "A body.", example: { name: "n" } });
      const Id = z.string().openapi({ param: { name: "id", in: "path" }, description: "The id.", example: "x" });
      export const route = defineRoute({
        method: "post",
        path: "/{id}",
        summary: "Make " + "one",
        description: \`Long \${"text"}\`,
        request: { params: z.object({ id: Id }), body: jsonBody(Body, "The body", { name: "n" }) },
        responses: { 201: jsonContent(Body, "Made"), 204: { description: "Done", headers: { A: { description: "a", schema: { type: "string" } } } } },
      });
      export const ERROR_CODES = { NOT_FOUND: { status: 404, description: "No such object." }, GONE: { status: 410, description: "Gone" } } as const satisfies Record<string, unknown>;
    `;
    const out = withoutDocumentation("sample.ts", source);
    for (const gone of ["A body.", "The id.", "Make ", "Long ", "The body", '"Made"', '"Done"', '"a"', "No such object.", "Gone", 'example: "x"']) expect(out).not.toContain(gone);
    for (const kept of ["description: z.string().optional()", 'param: { name: "id", in: "path" }', "status: 404", "status: 410", 'schema: { type: "string" }', 'method: "post"'])
      expect(out).toContain(kept);
    expect(out).toContain('jsonContent(Body, "")');
    expect(out).toContain("jsonBody(Body, undefined, undefined)");
    expect(syntaxErrors("sample.ts", out)).toEqual([]);
  });

  it("removes the prose of helpers, parameter objects and route declarations given by name, and keeps what runs", () => {
    const source = `
      const NOTE = "Long note.";
      const BOOKMARK = { name: "X-D1-Bookmark", in: "header", required: false, description: "A bookmark.", schema: { type: "string" } };
      const Flags = z.object({ dryRun: booleanQuery("Dry " + "run."), warnings: booleanQuery(NOTE), tags: ignoredMember(\`Ignored \${name}.\`, { readOnly: true }) });
      const headers = { "X-Request-Id": headerDoc("Id of the request."), ETag: headerDoc("The tag.", false) };
      export const patch = defineRoute(mergePatchRouteOf(put, "Change some members", "PatchBody"));
      export const route = routeDeclaration({ method: "patch", path: "/x", summary, description: NOTE, request: { query: Flags } } as Config);
      const notAParameter = { name: "n", description: "kept: no location" };
    `;
    const out = withoutDocumentation("sample.ts", source);
    for (const gone of ["A bookmark.", '"Dry "', "Ignored ", "Id of the request.", "The tag.", "Change some members", "description: NOTE"]) expect(out).not.toContain(gone);
    for (const kept of ['const NOTE = "Long note."', 'in: "header", required: false', 'schema: { type: "string" }', 'booleanQuery("")', 'ignoredMember("", { readOnly: true })',
      'headerDoc("", false)', 'mergePatchRouteOf(put, "", "PatchBody")', "summary,", 'description: "kept: no location"'])
      expect(out).toContain(kept);
    expect(syntaxErrors("sample.ts", out)).toEqual([]);
  });

  it("leaves every module of src/ valid TypeScript", () => {
    const files = execFileSync("git", ["ls-files", "src/**/*.ts"], { encoding: "utf8" }).trim().split("\n");
    let changed = 0;
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      const out = withoutDocumentation(file, text);
      if (out === text) continue;
      changed++;
      expect(syntaxErrors(file, out), file).toEqual([]);
    }
    expect(changed).toBeGreaterThan(20);
  }, 60_000);
});

function syntaxErrors(file: string, text: string): string[] {
  const { diagnostics = [] } = ts.transpileModule(text, { fileName: file, reportDiagnostics: true, compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } });
  return diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}
