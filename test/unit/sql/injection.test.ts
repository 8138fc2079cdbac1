import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { namesIn, parseExpression, type Expression } from "../../../src/domain/expression";
import {
  ansiDialect,
  expressionToSql,
  materializedViewQuery,
  postgresqlDialect,
  SqlGenerationError,
  type MaterializedViewDefinition,
  type SqlDialect,
  type SqlSource,
  type SqlSourceField,
} from "../../../src/domain/sql";
import { aggregateExpression, hostileText, rowExpression } from "./arbitraries";
import { parenthesesBalance, shapeOf, tokenizeSql, type SqlToken } from "./sql-tokenizer";

/**
 * The safety contract, checked with hostile input in every place a name or value reaches
 * the SQL: the hostile query (a) tokenizes, (b) has exactly the token shape of the same
 * definition with benign names and values, and (c) every quoted name and literal in it
 * reads back as exactly the hostile input. So no input can add, remove or change SQL.
 */

const SEED = 20_240_517;
const DIALECTS: readonly SqlDialect[] = [ansiDialect, postgresqlDialect];

/** PostgreSQL output must read the same whatever the server's standard_conforming_strings. */
function tokensOf(sql: string, dialect: SqlDialect): SqlToken[] {
  return tokenizeSql(sql, { backslashOnlyInUnicodeLiterals: dialect === postgresqlDialect });
}

// Slots: every place where a name or a value enters a materialized view's query.
const NAME_SLOTS = ["schema", "table", "columnA", "fieldA", "columnC", "fieldC", "fieldB", "metricM", "formulaF"] as const;
const VALUE_SLOTS = ["literalInB", "literalInM", "literalInF", "equalsValue", "inValue1", "inValue2", "betweenLow", "betweenHigh", "containsValue"] as const;
type Slot = (typeof NAME_SLOTS)[number] | (typeof VALUE_SLOTS)[number];
const SLOTS: readonly Slot[] = [...NAME_SLOTS, ...VALUE_SLOTS];
type Inputs = Readonly<Record<Slot, string>>;

/** An expression-language quoted name and string literal. */
const quotedName = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

function parsed(text: string): Expression {
  const result = parseExpression(text);
  if (!result.ok) throw new Error(`${JSON.stringify(text)}: ${result.error.message}`);
  return result.ast;
}

/** A source and a definition that use every slot. */
function scenario(inputs: Inputs): { source: SqlSource; definition: MaterializedViewDefinition } {
  const { fieldA, fieldB, fieldC, metricM } = inputs;
  const source: SqlSource = {
    table: { schema: inputs.schema, name: inputs.table },
    fields: new Map<string, SqlSourceField>([
      [fieldA, { kind: "NATIVE", column: inputs.columnA }],
      [fieldC, { kind: "NATIVE", column: inputs.columnC }],
      [fieldB, { kind: "DERIVED", expression: parsed(`CONCAT(${quotedName(fieldA)}, ${literal(inputs.literalInB)})`) }],
    ]),
    metrics: new Map([[metricM, parsed(`SUM(${quotedName(fieldC)}) WHERE ${quotedName(fieldA)} = ${literal(inputs.literalInM)}`)]]),
  };
  const definition: MaterializedViewDefinition = {
    type: "AGG",
    aggregations: [
      { type: "TERMS", field: { name: fieldA } },
      { type: "TERMS", field: { name: fieldB } },
    ],
    metrics: [
      { type: "COUNT" },
      { type: "SUM", field: { name: fieldC } },
      { formulaName: inputs.formulaF, formula: `${quotedName(metricM)} + (COUNT(*) WHERE ${quotedName(fieldB)} IN (${literal(inputs.literalInF)}, 'fixed'))` },
      { formulaName: metricM },
    ],
    filters: [
      { path: { name: fieldA }, operation: "EQUALS", value: inputs.equalsValue },
      { path: { name: fieldB }, operation: "IN", value: [inputs.inValue1, inputs.inValue2] },
      { path: { name: fieldA }, operation: "BETWEEN", value: [inputs.betweenLow, inputs.betweenHigh] },
      { path: { name: fieldB }, operation: "CONTAINS", value: inputs.containsValue },
      { path: { name: fieldC }, operation: "IS_NOT_NULL" },
    ],
  };
  return { source, definition };
}

/** Benign inputs: a distinct sentinel per slot, so each quoted token can be traced to its slot. */
const BENIGN: Inputs = Object.fromEntries(SLOTS.map((slot, index) => [slot, `zq${index}zq`])) as Inputs;

/** What a slot's input becomes inside its quotes: CONTAINS wraps its text in a LIKE pattern. */
function expectedText(slot: Slot, inputs: Inputs): string {
  const input = inputs[slot];
  return slot === "containsValue" ? input.replace(/[%_!]/g, (character) => `!${character}`) : input;
}

/** The benign token's text with each sentinel replaced by what the hostile input should read as. */
function expectedValue(benign: string, inputs: Inputs): string {
  return benign.replace(/zq(\d+)zq/g, (_, index: string) => expectedText(SLOTS[Number(index)], inputs));
}

function quotedValue(token: SqlToken): string | undefined {
  return token.kind === "identifier" || token.kind === "string" ? token.value : undefined;
}

const hostileInputs: fc.Arbitrary<Inputs> = fc
  .tuple(fc.uniqueArray(hostileText, { minLength: NAME_SLOTS.length, maxLength: NAME_SLOTS.length }), fc.array(hostileText, { minLength: VALUE_SLOTS.length, maxLength: VALUE_SLOTS.length }))
  .map(([names, values]) => Object.fromEntries([...NAME_SLOTS.map((slot, index) => [slot, names[index]]), ...VALUE_SLOTS.map((slot, index) => [slot, values[index]])]) as Inputs);

describe.each(DIALECTS)("$name: hostile names and values cannot change the query", (dialect) => {
  const benignTokens = tokensOf(materializedViewQuery(scenario(BENIGN).definition, scenario(BENIGN).source, dialect), dialect);

  it("the benign query uses every slot", () => {
    const quoted = benignTokens.map(quotedValue).join(" ");
    for (const slot of SLOTS) expect(quoted).toContain(BENIGN[slot]);
  });

  it("same token shape, and every quoted token reads back as the hostile input", () => {
    fc.assert(
      fc.property(hostileInputs, (inputs) => {
        const { source, definition } = scenario(inputs);
        let sql: string;
        try {
          sql = materializedViewQuery(definition, source, dialect);
        } catch (error) {
          // Two hostile names can still make the same column name (e.g. "sum_" + C = A).
          if (error instanceof SqlGenerationError && error.reason === "DUPLICATE_COLUMN") fc.pre(false);
          throw error;
        }
        const tokens = tokensOf(sql, dialect);
        expect(shapeOf(tokens)).toEqual(shapeOf(benignTokens));
        benignTokens.forEach((benign, index) => {
          const benignValue = quotedValue(benign);
          if (benignValue !== undefined) expect(quotedValue(tokens[index])).toBe(expectedValue(benignValue, inputs));
        });
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it("NUL and unpaired surrogates are refused wherever they are", () => {
    const poisoned = fc.record({
      slot: fc.constantFrom(...SLOTS),
      poison: fc.constantFrom("\u0000", "\uD800", "\uDFFF"),
      before: hostileText,
      after: hostileText,
    });
    fc.assert(
      fc.property(poisoned, ({ slot, poison, before, after }) => {
        const { source, definition } = scenario({ ...BENIGN, [slot]: `${before}${poison}${after}` });
        let thrown: unknown;
        try {
          materializedViewQuery(definition, source, dialect);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(SqlGenerationError);
        expect((thrown as SqlGenerationError).reason).toBe("UNSAFE_TEXT");
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it("numbers are written only as numbers, and read back exactly", () => {
    const filterValue = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constantFrom(0, -0, 1e21, -1e-7, Number.MAX_VALUE, Number.MIN_VALUE));
    fc.assert(
      fc.property(filterValue, (value) => {
        const sql = materializedViewQuery(
          { type: "AGG", metrics: [{ type: "COUNT" }], filters: [{ path: { name: "n" }, operation: "GT", value }] },
          { table: { name: "t" }, fields: new Map([["n", { kind: "NATIVE", column: "n" }]]), metrics: new Map() },
          dialect,
        );
        const where = tokenizeSql(sql.split("\n")[2]);
        const negative = value < 0;
        expect(shapeOf(where)).toEqual(["WHERE", "identifier", ">", ...(negative ? ["-"] : []), "number"]);
        const number = where.at(-1) as Extract<SqlToken, { kind: "number" }>;
        expect(Number(number.text) * (negative ? -1 : 1)).toBe(value === 0 ? 0 : value);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

/** Literals the dialects write themselves: interval amounts, units, TRIM's space, TEXT_TO_NUM's pattern. */
const DIALECT_LITERALS: ReadonlySet<string> = new Set([
  " ", "1", "3", "7", "0.001", "1970-01-01 00:00:00",
  "milliseconds", "second", "minute", "hour", "day", "week", "month", "quarter", "year",
  "^[[:space:]]*[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?[[:space:]]*$",
]);

/** The values of every node of `kind` in a tree, read from its plain-data structure. */
function leafValues(tree: Expression, kind: "string" | "name"): Set<string> {
  const values = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === "object") {
      const record = node as Record<string, unknown>;
      if (record.kind === "string" && kind === "string") values.add(record.value as string);
      if (record.kind === "name" && kind === "name") values.add(record.name as string);
      Object.values(record).forEach(visit);
    }
  };
  visit(tree);
  return values;
}

describe.each(DIALECTS)("$name: any expression tree with hostile names and text", (dialect) => {
  const trees = fc.oneof(
    rowExpression(4).map((tree) => ({ tree, level: "row" as const })),
    aggregateExpression(4).map((tree) => ({ tree, level: "aggregate" as const })),
  );

  it("tokenizes, and its quoted tokens are exactly the tree's names and text", () => {
    fc.assert(
      fc.property(trees, ({ tree, level }) => {
        // Every name resolves: as a column of its own name, or as a metric counting rows.
        const names = namesIn(tree);
        const source: SqlSource = {
          table: { name: "t" },
          fields: new Map(names.map((name): [string, SqlSourceField] => [name, { kind: "NATIVE", column: name }])),
          metrics: new Map(names.map((name) => [name, parsed("COUNT(*)")])),
        };
        let sql: string;
        try {
          sql = expressionToSql(tree, level, source, dialect);
        } catch (error) {
          // The generator builds only well-shaped trees, so the one refusal left is the dialect's.
          expect((error as SqlGenerationError).reason).toBe("UNSUPPORTED_FUNCTION");
          return;
        }
        const tokens = tokensOf(sql, dialect);
        expect(parenthesesBalance(tokens)).toBe(true);
        const strings = leafValues(tree, "string");
        const identifiers = new Set(tokens.flatMap((token) => (token.kind === "identifier" ? [token.value] : [])));
        const literals = new Set(tokens.flatMap((token) => (token.kind === "string" ? [token.value] : [])));
        for (const identifier of identifiers) expect(names).toContain(identifier);
        for (const value of literals) expect(strings.has(value) || DIALECT_LITERALS.has(value), JSON.stringify(value)).toBe(true);
        // A leaf can vanish only when it is never evaluated; all the printer's forms keep every leaf.
        for (const value of strings) expect(literals).toContain(value);
      }),
      { seed: SEED, numRuns: 400 },
    );
  });
});
