import fc from "fast-check";
import {
  FUNCTION_DEFINITIONS,
  TIME_UNITS,
  type BinaryOperator,
  type CallArgument,
  type Expression,
  type FunctionDefinition,
  type SourcePosition,
} from "../../../src/domain/expression";

const NOWHERE: SourcePosition = { offset: 0, line: 1, column: 1 };

/** Pieces that have broken out of quoting somewhere, in some database. */
export const DANGEROUS_PIECES = [
  "'", "''", '"', '""', "\\", "\\'", '\\"', "\\\\", ";", "--", "/*", "*/", "#", "\n", "\r\n", "\t",
  "$$", "$q$", "E'", "U&'", "U&\"", "N'", "X'", "B'", "%", "_", "!", "?", "$1", ":name", "`", "[", "]",
  " OR 1=1", "'); DROP TABLE users; --", '"; DROP TABLE users; --', " UESCAPE '!'", "\\u0027", "%27", "&#39;",
  "é", "𝄞", "😀", "\u202E", "\u200B", "\uFEFF", "ſ", "ı", "\u0085", "\u2028", "ʼ", "＇", "＂",
];

const utf8 = new TextEncoder();

/**
 * Hostile text, without NUL (refused everywhere, tested separately) and short enough to be
 * a PostgreSQL name even with a metric prefix such as "countd_".
 */
export const hostileText: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...DANGEROUS_PIECES) },
      { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 3 }) },
    ),
    { minLength: 1, maxLength: 8 },
  )
  .map((pieces) => pieces.join(""))
  .filter((text) => utf8.encode(text).length <= 50 && !text.includes("\u0000"));

const numberText = fc.oneof(
  fc.nat({ max: 10_000 }).map(String),
  fc.tuple(fc.nat(999), fc.nat(999)).map(([whole, fraction]) => `${whole}.${fraction}`),
  fc.constantFrom(".5", "2.", "1e3", "1E-7", "007"),
);

const BINARY_OPERATORS: readonly BinaryOperator[] = ["OR", "AND", "=", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/"];

const rowFunctions = FUNCTION_DEFINITIONS.filter((definition) => definition.level !== "aggregate");
const aggregateFunctions = FUNCTION_DEFINITIONS.filter((definition) => definition.level === "aggregate");
const bothLevelFunctions = FUNCTION_DEFINITIONS.filter((definition) => definition.level === "both");

/** A call with arguments that fit the definition's shape (types are not the point here). */
function callOf(definitions: readonly FunctionDefinition[], argument: fc.Arbitrary<Expression>): fc.Arbitrary<Expression> {
  return fc.constantFrom(...definitions).chain((definition) => {
    const parts = definition.arguments.map((parameter): fc.Arbitrary<CallArgument[]> => {
      if (parameter.types.includes("TIME_UNIT")) return fc.constantFrom(...TIME_UNITS).map((unit) => [{ kind: "timeUnit", unit, position: NOWHERE }]);
      if (parameter.variadic === true) return fc.array(argument, { minLength: 1, maxLength: 3 });
      if (parameter.optional === true) return fc.option(argument, { nil: undefined }).map((value) => (value === undefined ? [] : [value]));
      return argument.map((value) => [value]);
    });
    return fc.tuple(...parts).map((lists): Expression => {
      // An optional argument can only be left out when the ones after it are too.
      const args: CallArgument[] = [];
      for (const list of lists) {
        if (list.length === 0) break;
        args.push(...list);
      }
      return { kind: "call", name: definition.name, args, filter: null, position: NOWHERE };
    });
  });
}

/** The node kinds shared by both levels, built over `child`. */
function composite(child: fc.Arbitrary<Expression>): fc.Arbitrary<Expression>[] {
  return [
    fc.tuple(fc.constantFrom<"NOT" | "-">("NOT", "-"), child).map(([operator, operand]): Expression => ({ kind: "unary", operator, operand, position: NOWHERE })),
    fc.tuple(fc.constantFrom(...BINARY_OPERATORS), child, child).map(([operator, left, right]): Expression => ({ kind: "binary", operator, left, right, position: NOWHERE })),
    fc.tuple(fc.boolean(), child, fc.array(child, { minLength: 1, maxLength: 3 })).map(([negated, operand, values]): Expression => ({ kind: "in", negated, operand, values, position: NOWHERE })),
    fc.tuple(fc.boolean(), child, child, child).map(([negated, operand, low, high]): Expression => ({ kind: "between", negated, operand, low, high, position: NOWHERE })),
    fc.tuple(fc.boolean(), child).map(([negated, operand]): Expression => ({ kind: "isNull", negated, operand, position: NOWHERE })),
    fc
      .record({
        operand: fc.option(child, { nil: null }),
        branches: fc.array(fc.record({ when: child, then: child }), { minLength: 1, maxLength: 2 }),
        otherwise: fc.option(child, { nil: null }),
      })
      .map(({ operand, branches, otherwise }): Expression => ({ kind: "case", operand, branches, otherwise, position: NOWHERE })),
  ];
}

function literalOrName(name: fc.Arbitrary<string>): fc.Arbitrary<Expression> {
  return fc.oneof(
    numberText.map((text): Expression => ({ kind: "number", text, position: NOWHERE })),
    hostileText.map((value): Expression => ({ kind: "string", value, position: NOWHERE })),
    fc.boolean().map((value): Expression => ({ kind: "boolean", value, position: NOWHERE })),
    fc.constant<Expression>({ kind: "null", position: NOWHERE }),
    name.map((value): Expression => ({ kind: "name", name: value, position: NOWHERE })),
  );
}

/** Row-level trees the SQL printer accepts: any node kind, row-level functions, hostile names and text. */
export const rowExpression: fc.Memo<Expression> = fc.memo((depth) => {
  const leaf = literalOrName(hostileText);
  if (depth <= 1) return leaf;
  const child = rowExpression(depth - 1);
  return fc.oneof(leaf, ...composite(child), callOf(rowFunctions, child));
});

/** Aggregates over row-level trees, sometimes COUNT(*), sometimes with a WHERE filter. */
const aggregateCall: fc.Arbitrary<Expression> = fc
  .tuple(callOf(aggregateFunctions, rowExpression(3)), fc.boolean(), fc.option(rowExpression(3), { nil: null, freq: 2 }))
  .map(([call, countRows, filter]): Expression => {
    if (call.kind !== "call") return call;
    const args: readonly CallArgument[] = call.name === "COUNT" && countRows ? [{ kind: "star", position: NOWHERE }] : call.args;
    return { ...call, args, filter };
  });

/** Aggregate-level trees: metrics by name, aggregates (filtered or not) over row-level trees, and both-level functions. */
export const aggregateExpression: fc.Memo<Expression> = fc.memo((depth) => {
  const leaf = fc.oneof(aggregateCall, literalOrName(hostileText));
  if (depth <= 1) return leaf;
  const child = aggregateExpression(depth - 1);
  return fc.oneof(leaf, ...composite(child), callOf(bothLevelFunctions, child));
});
