// An esbuild plugin of the deploy build (scripts/build.mjs): leaves out of the Worker the prose that
// only the OpenAPI document reads. The document is written at build time from src/ itself
// (scripts/openapi-document.mjs) and served from the static assets, so the deployed Worker never
// reads a schema's description or example, an operation's summary, nor an error code's description;
// they were about a tenth of the bundle. Removed, by the syntax tree and nothing looser:
//
//   - in the object literals given to `.openapi(...)`: `description`, `example`, `examples`;
//   - in the object literal given to `defineRoute(...)` or `routeDeclaration(...)`, and in object literals nested in it
//     directly (responses, request bodies): `summary` and `description` whose value is text
//     (a string, a template or their concatenation), and `example`/`examples` that are not a call;
//     a member holding a schema (`description: z.string()`, a body member named so) is a call and stays;
//   - the description and example arguments of `jsonContent(schema, description)` and
//     `jsonBody(schema, description, example)` (src/lib/openapi.ts), when text or a literal: ""
//     and undefined;
//   - in `ERROR_CODES` (src/lib/errors.ts): each code's `description`.
//
// What stays is everything the Worker reads at run time: schemas, parameter metadata, the x-*
// extensions, statuses. The tests run src/ itself; the walk-through and the bench run this build.
import { readFileSync } from "node:fs";
import ts from "typescript";

const METADATA = new Set(["description", "example", "examples"]);
const PROSE = new Set(["summary", "description"]);
const EXAMPLES = new Set(["example", "examples"]);
const ROUTE_CONFIGS = new Set(["defineRoute", "routeDeclaration"]);
/** Per helper, what its arguments after the schema become. */
const PROSE_ARGUMENTS = { jsonContent: ['""'], jsonBody: ["undefined", "undefined"] };

const nameOf = (property) => (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name) ? property.name.text : undefined);
const isText = (node) =>
  ts.isStringLiteral(node) ||
  ts.isNoSubstitutionTemplateLiteral(node) ||
  ts.isTemplateExpression(node) ||
  (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken && isText(node.left) && isText(node.right)) ||
  (ts.isParenthesizedExpression(node) && isText(node.expression));

/** The [start, end, replacement] edits, last first. */
function rangesToCut(source) {
  const ranges = [];
  const text = source.getFullText();
  // The property and the comma after it, if any (a comma left before a closing brace is valid).
  const cut = (property) => {
    let end = property.end;
    while (/\s/.test(text[end] ?? "")) end++;
    ranges.push([property.getStart(source), text[end] === "," ? end + 1 : property.end, ""]);
  };
  const replace = (node, replacement) => ranges.push([node.getStart(source), node.end, replacement]);
  const isLiteral = (node) => isText(node) || ts.isObjectLiteralExpression(node) || ts.isArrayLiteralExpression(node);
  const properties = (object) => object.properties.filter(ts.isPropertyAssignment);
  const inRouteConfig = (object) => {
    for (const property of properties(object)) {
      const name = nameOf(property);
      const value = property.initializer;
      if ((PROSE.has(name) && isText(value)) || (EXAMPLES.has(name) && !ts.isCallExpression(value))) cut(property);
      else if (ts.isObjectLiteralExpression(value)) inRouteConfig(value);
    }
  };
  const visit = (node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isPropertyAccessExpression(callee) && callee.name.text === "openapi") {
        for (const argument of node.arguments.filter(ts.isObjectLiteralExpression)) for (const property of properties(argument)) if (METADATA.has(nameOf(property))) cut(property);
      }
      if (ts.isIdentifier(callee) && ROUTE_CONFIGS.has(callee.text)) for (const argument of node.arguments.filter(ts.isObjectLiteralExpression)) inRouteConfig(argument);
      if (ts.isIdentifier(callee) && PROSE_ARGUMENTS[callee.text]) {
        for (const [index, replacement] of PROSE_ARGUMENTS[callee.text].entries()) {
          const argument = node.arguments[index + 1];
          if (argument && isLiteral(argument)) replace(argument, replacement);
        }
      }
    }
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === "ERROR_CODES" && node.initializer) {
      let codes = node.initializer;
      while (ts.isSatisfiesExpression(codes) || ts.isAsExpression(codes)) codes = codes.expression;
      if (ts.isObjectLiteralExpression(codes)) for (const code of properties(codes)) if (ts.isObjectLiteralExpression(code.initializer)) for (const property of properties(code.initializer)) if (nameOf(property) === "description") cut(property);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return ranges.sort((a, b) => b[0] - a[0]);
}

/** The source of a module less its documentation-only members. */
export function withoutDocumentation(path, text) {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  let out = text;
  let applied = Infinity;
  for (const [start, end, replacement] of rangesToCut(source)) {
    if (end > applied) throw new Error(`${path}: two documentation edits overlap at ${start}; see scripts/build-without-docs.mjs`);
    out = out.slice(0, start) + replacement + out.slice(end);
    applied = start;
  }
  return out;
}

export const withoutDocumentationPlugin = {
  name: "without-documentation",
  setup(build) {
    build.onLoad({ filter: /\/src\/.*\.ts$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      if (!/\.openapi\(|defineRoute\(|routeDeclaration\(|jsonContent\(|jsonBody\(|ERROR_CODES =/.test(text)) return undefined;
      return { contents: withoutDocumentation(args.path, text), loader: "ts" };
    });
  },
};
