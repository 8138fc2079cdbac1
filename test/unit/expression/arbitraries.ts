import fc from "fast-check";
import {
  FUNCTION_DEFINITIONS,
  TIME_UNITS,
  type BinaryOperator,
  type CallArgument,
  type Expression,
  type SourcePosition,
} from "../../../src/domain/expression";

/** Generated trees carry no real positions; comparisons strip them anyway. */
const NOWHERE: SourcePosition = { offset: 0, line: 0, column: 0 };

const digits = fc.stringMatching(/^[0-9]{1,6}$/);

const numberText = fc.oneof(
  digits,
  fc.tuple(digits, digits).map(([whole, fraction]) => `${whole}.${fraction}`),
  digits.map((fraction) => `.${fraction}`),
  digits.map((whole) => `${whole}.`),
  fc
    .tuple(digits, fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), fc.stringMatching(/^[0-9]{1,3}$/))
    .map(([mantissa, e, sign, exponent]) => `${mantissa}${e}${sign}${exponent}`),
);

/** Names that print bare, names that look like keywords, and names that need quotes. */
const name = fc.oneof(
  fc.constantFrom("price", "größe", "数量", "_x.y1", "year", "day", "from", "sum", "Count", "ın", "ſum"),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.]{0,8}$/),
  fc.constantFrom("and", "Case", "NULL", "where", "my field", 'a"b', "1abc", "a-b", "\n", "'"),
  fc.string({ unit: "binary", minLength: 1, maxLength: 8 }),
);

const functionName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...FUNCTION_DEFINITIONS.map((definition) => definition.name)) },
  { weight: 1, arbitrary: fc.constantFrom("FOO", "MY_FN", "A.B", "X1") },
);

const binaryOperator = fc.constantFrom<BinaryOperator>("OR", "AND", "=", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/");

const leaf: fc.Arbitrary<Expression> = fc.oneof(
  numberText.map((text): Expression => ({ kind: "number", text, position: NOWHERE })),
  fc.string({ unit: "binary", maxLength: 10 }).map((value): Expression => ({ kind: "string", value, position: NOWHERE })),
  fc.boolean().map((value): Expression => ({ kind: "boolean", value, position: NOWHERE })),
  fc.constant<Expression>({ kind: "null", position: NOWHERE }),
  name.map((value): Expression => ({ kind: "name", name: value, position: NOWHERE })),
);

const unitsFirst: ReadonlySet<string> = new Set(
  FUNCTION_DEFINITIONS.filter((definition) => definition.arguments[0]?.types.includes("TIME_UNIT")).map((definition) => definition.name),
);

/**
 * Trees the parser can produce: time units only in the first argument of the
 * functions that take one, `*` only as a lone argument.
 */
export const expressionTree: fc.Memo<Expression> = fc.memo((depth) => {
  if (depth <= 1) return leaf;
  const child = expressionTree(depth - 1);
  const children = (maxLength: number) => fc.array(child, { minLength: 1, maxLength });

  const call = fc
    .record({
      name: functionName,
      star: fc.boolean(),
      values: fc.array(child, { maxLength: 3 }),
      unit: fc.constantFrom(...TIME_UNITS),
      filter: fc.option(child, { nil: null, freq: 3 }),
    })
    .map(({ name: callName, star, values, unit, filter }): Expression => {
      let args: CallArgument[];
      if (star) args = [{ kind: "star", position: NOWHERE }];
      else if (unitsFirst.has(callName)) args = [{ kind: "timeUnit", unit, position: NOWHERE }, ...values];
      else args = values;
      return { kind: "call", name: callName, args, filter, position: NOWHERE };
    });

  return fc.oneof(
    { weight: 2, arbitrary: leaf },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom<"NOT" | "-">("NOT", "-"), child)
        .map(([operator, operand]): Expression => ({ kind: "unary", operator, operand, position: NOWHERE })),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(binaryOperator, child, child)
        .map(([operator, left, right]): Expression => ({ kind: "binary", operator, left, right, position: NOWHERE })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.boolean(), child, children(3))
        .map(([negated, operand, values]): Expression => ({ kind: "in", negated, operand, values, position: NOWHERE })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.boolean(), child, child, child)
        .map(([negated, operand, low, high]): Expression => ({ kind: "between", negated, operand, low, high, position: NOWHERE })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.boolean(), child).map(([negated, operand]): Expression => ({ kind: "isNull", negated, operand, position: NOWHERE })),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          operand: fc.option(child, { nil: null }),
          branches: fc.array(fc.record({ when: child, then: child }), { minLength: 1, maxLength: 3 }),
          otherwise: fc.option(child, { nil: null }),
        })
        .map(({ operand, branches, otherwise }): Expression => ({ kind: "case", operand, branches, otherwise, position: NOWHERE })),
    },
    { weight: 2, arbitrary: call },
  );
});

/** Grammar fragments, so that random joins look like near-miss expressions. */
export const GRAMMAR_TOKENS = [
  "(", ")", ",", "*", "/", "+", "-", "=", "!=", "<>", "<", "<=", ">", ">=",
  "AND", "or", "NOT", "IN", "BETWEEN", "IS", "NULL", "TRUE", "false", "CASE", "WHEN", "THEN", "ELSE", "END", "WHERE", "FROM",
  "SUM(", "count(*)", "EXTRACT(", "TIME_ADD(", "YEAR", "day", "COALESCE(", "foo(", "ROUND(",
  "price", "größe", '"my field"', '"', "'", "'text'", "'it''s'", "''", "42", "4.2", "1e3", ".5", "1e", "%", "@", "\n", "\t", " ",
];
