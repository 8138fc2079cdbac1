// An esbuild plugin of the deploy build (scripts/build.mjs): leaves out of the Worker the prose that
// only the OpenAPI document reads. The document is written at build time from src/ itself
// (scripts/openapi-document.mjs) and served from the static assets, so the deployed Worker never
// reads a schema's description or example, an operation's summary, nor an error code's description;
// they were about a tenth of the bundle. Removed, by the syntax tree and nothing looser:
//
//   - in the object literals given to `.openapi(...)`: `description`, `example`, `examples`;
//   - in the object literal given to `defineRoute(...)` or `routeDeclaration(...)`, and in object literals nested in it
//     directly (responses, request bodies): `summary` and `description` whose value is text
//     (a string, a template or their concatenation) or a name (a constant of such text), and
//     `example`/`examples` that are not a call; a member holding a schema (`description: z.string()`,
//     a body member named so) is a call and stays;
//   - the documentation arguments of the helpers that take some (PROSE_ARGUMENTS: the description
//     and example of `jsonContent(schema, description)` and `jsonBody(schema, description, example)`,
//     a response header's `headerDoc(description)`, ...), when text, a literal or a name: "" or undefined;
//   - in an OpenAPI parameter object written out (`{ name: "X-...", in: "header", description, schema }`):
//     its `description` when text;
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
/** Per helper, what its documentation-only arguments become, by position. */
const PROSE_ARGUMENTS = {
  jsonContent: { 1: '""' },
  jsonBody: { 1: "undefined", 2: "undefined" },
  // src/lib/openapi.ts: a response header's documentation.
  headerDoc: { 0: '""' },
  // src/routes/connection-types/connection-types.schemas.ts: a true/false query member, and its description.
  booleanQuery: { 0: '""' },
  // src/lib/closed-bodies.ts: a body member accepted and ignored, and why (its description).
  ignoredMember: { 0: '""' },
  // src/lib/merge-patch-route.ts: the PATCH beside a PUT, and its summary.
  mergePatchRouteOf: { 1: '""' },
};
const PARAMETER_LOCATIONS = new Set(["header", "query", "path", "cookie"]);

const nameOf = (property) => (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name) ? property.name.text : undefined);
const isText = (node) =>
  ts.isStringLiteral(node) ||
  ts.isNoSubstitutionTemplateLiteral(node) ||
  ts.isTemplateExpression(node) ||
  (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken && isText(node.left) && isText(node.right)) ||
  (ts.isParenthesizedExpression(node) && isText(node.expression));

/** An expression without the type assertions and parentheses around it (`{ ... } as T`). */
const unwrapped = (node) => (ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isParenthesizedExpression(node) ? unwrapped(node.expression) : node);

/** The [start, end, replacement] edits, last first. */
function rangesToCut(source) {
  const ranges = [];
  const text = source.getFullText();
  // The property and the comma after it, if any (a comma left before a closing brace is valid).
  const cut = (property) => {
    let end = property.end;
    while (/\s/.test(text[end] ?? "")) end++;
    const range = [property.getStart(source), text[end] === "," ? end + 1 : property.end, ""];
    if (!ranges.some(([start, stop]) => start === range[0] && stop === range[1])) ranges.push(range);
  };
  const replace = (node, replacement) => ranges.push([node.getStart(source), node.end, replacement]);
  const isLiteral = (node) => isText(node) || ts.isObjectLiteralExpression(node) || ts.isArrayLiteralExpression(node) || ts.isIdentifier(node);
  const valueOf = (object, name) => properties(object).find((property) => nameOf(property) === name)?.initializer;
  const isParameterObject = (object) => {
    const location = valueOf(object, "in");
    const name = valueOf(object, "name");
    return location && ts.isStringLiteral(location) && PARAMETER_LOCATIONS.has(location.text) && name && ts.isStringLiteral(name);
  };
  const properties = (object) => object.properties.filter(ts.isPropertyAssignment);
  const inRouteConfig = (object) => {
    for (const property of properties(object)) {
      const name = nameOf(property);
      const value = property.initializer;
      if ((PROSE.has(name) && (isText(value) || ts.isIdentifier(value))) || (EXAMPLES.has(name) && !ts.isCallExpression(value))) cut(property);
      else if (ts.isObjectLiteralExpression(value)) inRouteConfig(value);
    }
  };
  const visit = (node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isPropertyAccessExpression(callee) && callee.name.text === "openapi") {
        for (const argument of node.arguments.filter(ts.isObjectLiteralExpression)) for (const property of properties(argument)) if (METADATA.has(nameOf(property))) cut(property);
      }
      if (ts.isIdentifier(callee) && ROUTE_CONFIGS.has(callee.text)) for (const argument of node.arguments.map(unwrapped).filter(ts.isObjectLiteralExpression)) inRouteConfig(argument);
      if (ts.isIdentifier(callee) && Object.hasOwn(PROSE_ARGUMENTS, callee.text)) {
        for (const [index, replacement] of Object.entries(PROSE_ARGUMENTS[callee.text])) {
          const argument = node.arguments[Number(index)];
          if (argument && isLiteral(argument)) replace(argument, replacement);
        }
      }
    }
    if (ts.isObjectLiteralExpression(node) && isParameterObject(node)) for (const property of properties(node)) if (nameOf(property) === "description" && isText(property.initializer)) cut(property);
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
      if (!/\.openapi\(|defineRoute\(|routeDeclaration\(|jsonContent\(|jsonBody\(|headerDoc\(|booleanQuery\(|ignoredMember\(|mergePatchRouteOf\(|\bin: "|ERROR_CODES =/.test(text)) return undefined;
      return { contents: withoutDocumentation(args.path, text), loader: "ts" };
    });
  },
};
