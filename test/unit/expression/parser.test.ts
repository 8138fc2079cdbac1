import { describe, expect, it } from "vitest";
import { MAX_NESTING_DEPTH, parseExpression, withoutPositions } from "../../../src/domain/expression";
import { parseError, parseOk, parsedAs } from "./helpers";

describe("precedence and grouping", () => {
  it.each([
    ["1 + 2 * 3", "(+ 1 (* 2 3))"],
    ["(1 + 2) * 3", "(* (+ 1 2) 3)"],
    ["1 - 2 - 3", "(- (- 1 2) 3)"],
    ["1 - (2 - 3)", "(- 1 (- 2 3))"],
    ["8 / 4 / 2", "(/ (/ 8 4) 2)"],
    ["-a * b", "(* (- a) b)"],
    ["-(a * b)", "(- (* a b))"],
    ["a * -b", "(* a (- b))"],
    ["- -a", "(- (- a))"],
    ["a OR b AND c", "(OR a (AND b c))"],
    ["(a OR b) AND c", "(AND (OR a b) c)"],
    ["a AND b OR c AND d", "(OR (AND a b) (AND c d))"],
    ["NOT a = 1 AND b", "(AND (NOT (= a 1)) b)"],
    ["NOT NOT a", "(NOT (NOT a))"],
    ["a + 1 > b * 2", "(> (+ a 1) (* b 2))"],
    ["a = 1 OR b IS NULL", "(OR (= a 1) (IS-NULL b))"],
    ["x BETWEEN 1 AND 2 AND y", "(AND (BETWEEN x 1 2) y)"],
    ["x BETWEEN -1 AND a + 1", "(BETWEEN x (- 1) (+ a 1))"],
    ["a + b IN (1, 2)", "(IN (+ a b) 1 2)"],
    ["a IN (1 + 1, b OR c)", "(IN a (+ 1 1) (OR b c))"],
  ])("%s", (text, expected) => {
    expect(parsedAs(text)).toBe(expected);
  });

  it("reads every comparison operator, and <> as !=", () => {
    for (const operator of ["=", "!=", "<", "<=", ">", ">="]) expect(parsedAs(`a ${operator} b`)).toBe(`(${operator} a b)`);
    expect(parsedAs("a <> b")).toBe("(!= a b)");
    expect(parsedAs("a<=b")).toBe("(<= a b)");
  });

  it("refuses chained comparisons instead of guessing", () => {
    expect(parseError("a < b < c").message).toBe("Comparisons cannot be chained; combine them with AND or OR");
    expect(parseError("a = b IS NULL").column).toBe(7);
    expect(parsedAs("(a < b) = c")).toBe("(= (< a b) c)");
  });
});

describe("keywords and names", () => {
  it("treats keywords and function names case-insensitively", () => {
    expect(parsedAs("sum(x) where y in (1) and NoT z is not null")).toBe("(SUM x :where (AND (IN y 1) (NOT (IS-NOT-NULL z))))");
    expect(parsedAs("case when a then 1 else 2 end")).toBe("(CASE (WHEN a 1) (ELSE 2))");
    expect(parsedAs("True OR false OR nUlL")).toBe("(OR (OR TRUE FALSE) NULL)");
  });

  it("keeps names case-sensitive", () => {
    expect(parsedAs("Price + price")).toBe("(+ Price price)");
  });

  it("reads unicode names with digits, underscores and dots", () => {
    expect(parsedAs("größe + 数量 + _x.y1 + ñ2 + Ωmega")).toBe("(+ (+ (+ (+ größe 数量) _x.y1) ñ2) Ωmega)");
  });

  it("does not let non-ASCII case mapping turn names into keywords or functions", () => {
    // "ın".toUpperCase() is "IN" and "ſum".toUpperCase() is "SUM" in JavaScript.
    expect(parsedAs("ın + ſum")).toBe("(+ ın ſum)");
    expect(parsedAs("ſum(x)")).toBe("(ſUM x)");
  });

  it("reads double-quoted names, with a doubled quote as escape", () => {
    expect(parsedAs('"my field" + "a""b"')).toBe('(+ my field a"b)');
    const ast = parseOk('"AND"');
    expect(ast).toMatchObject({ kind: "name", name: "AND" });
    expect(parseOk('"sum"')).toMatchObject({ kind: "name", name: "sum" });
  });

  it("rejects an empty quoted name, an unterminated one, and calling a quoted name", () => {
    expect(parseError('""').message).toBe("A quoted name cannot be empty");
    expect(parseError('a + "oops')).toMatchObject({ message: "Unterminated quoted name", column: 5 });
    expect(parseError('"sum"(x)').message).toBe("A quoted name cannot be called as a function");
  });

  it("does not reserve function names, time units or FROM", () => {
    expect(parsedAs("sum + year + day + from")).toBe("(+ (+ (+ sum year) day) from)");
  });
});

describe("literals", () => {
  it("keeps number text as written", () => {
    for (const text of ["42", "4.2", "1e3", "1E-3", "2.5e+10", ".5", "5."]) {
      expect(parseOk(text)).toMatchObject({ kind: "number", text });
    }
  });

  it("rejects numbers run into letters", () => {
    expect(parseError("1abc").message).toBe("Invalid number '1a...'");
    expect(parseError("1.2.3").message).toMatch(/^Invalid number/);
    expect(parseError("1e").message).toMatch(/^Invalid number/);
  });

  it("reads strings with a doubled single quote as escape", () => {
    expect(parseOk("'it''s'")).toMatchObject({ kind: "string", value: "it's" });
    expect(parseOk("''")).toMatchObject({ kind: "string", value: "" });
    expect(parseOk("''''")).toMatchObject({ kind: "string", value: "'" });
    expect(parseOk("'a\nb \"c\"'")).toMatchObject({ kind: "string", value: 'a\nb "c"' });
  });
});

describe("CASE", () => {
  it("reads the searched form with and without ELSE", () => {
    expect(parsedAs("CASE WHEN a > 1 THEN 'big' WHEN a > 0 THEN 'small' ELSE 'none' END")).toBe(
      "(CASE (WHEN (> a 1) 'big') (WHEN (> a 0) 'small') (ELSE 'none'))",
    );
    expect(parsedAs("CASE WHEN a THEN 1 END")).toBe("(CASE (WHEN a 1))");
  });

  it("reads the simple form", () => {
    expect(parsedAs("CASE code WHEN 'LAX' THEN 1 WHEN 'ORD' THEN 2 ELSE 0 END")).toBe("(CASE code (WHEN 'LAX' 1) (WHEN 'ORD' 2) (ELSE 0))");
    expect(parsedAs("CASE a + 1 WHEN 2 THEN b END")).toBe("(CASE (+ a 1) (WHEN 2 b))");
  });

  it("nests CASE inside CASE", () => {
    expect(parsedAs("CASE WHEN a THEN CASE WHEN b THEN 1 END ELSE 2 END")).toBe("(CASE (WHEN a (CASE (WHEN b 1))) (ELSE 2))");
  });

  it("reports missing parts", () => {
    expect(parseError("CASE END").message).toBe("Expected WHEN after CASE but found END");
    expect(parseError("CASE WHEN a 1 END").message).toBe("Expected THEN after the WHEN condition but found number 1");
    expect(parseError("CASE WHEN a THEN 1").message).toBe("Expected WHEN, ELSE or END in CASE but found end of expression");
    expect(parseError("CASE WHEN a THEN 1 ELSE 2 WHEN").message).toBe("Expected END to close CASE but found WHEN");
  });
});

describe("IN, BETWEEN and IS NULL", () => {
  it("reads the positive and negated forms", () => {
    expect(parsedAs("code IN ('LAX', 'ORD')")).toBe("(IN code 'LAX' 'ORD')");
    expect(parsedAs("code NOT IN ('LAX')")).toBe("(NOT-IN code 'LAX')");
    expect(parsedAs("x BETWEEN 1 AND 10")).toBe("(BETWEEN x 1 10)");
    expect(parsedAs("x NOT BETWEEN 1 AND 10")).toBe("(NOT-BETWEEN x 1 10)");
    expect(parsedAs("x IS NULL")).toBe("(IS-NULL x)");
    expect(parsedAs("x IS NOT NULL")).toBe("(IS-NOT-NULL x)");
    expect(parsedAs("NOT x IN (1)")).toBe("(NOT (IN x 1))");
  });

  it("reports malformed forms", () => {
    expect(parseError("x IN ()").message).toBe("An IN list needs at least one value");
    expect(parseError("x IN 1").message).toBe("Expected '(' to start the IN list but found number 1");
    expect(parseError("x IN (1, 2").message).toBe("Expected ',' or ')' in the IN list but found end of expression");
    expect(parseError("x BETWEEN 1 OR 2").message).toBe("Expected AND between the bounds of BETWEEN but found OR");
    expect(parseError("x NOT LIKE 'a'").message).toBe("Expected IN or BETWEEN after NOT but found name 'LIKE'");
    expect(parseError("x IS 1").message).toBe("Expected NULL or NOT NULL after IS but found number 1");
  });
});

describe("function calls", () => {
  it("reads calls with zero, one and many arguments, upper-casing the name", () => {
    expect(parsedAs("pi()")).toBe("(PI)");
    expect(parsedAs("Round(price, 2)")).toBe("(ROUND price 2)");
    expect(parsedAs("concat(a, ' ', b, c)")).toBe("(CONCAT a ' ' b c)");
    expect(parsedAs("unknown_fn(1)")).toBe("(UNKNOWN_FN 1)");
  });

  it("reads COUNT(*) and only a lone star", () => {
    expect(parsedAs("count(*)")).toBe("(COUNT *)");
    expect(parsedAs("COUNT( * )")).toBe("(COUNT *)");
    expect(parseError("COUNT(*, x)").message).toBe("Expected ')': '*' must be the only argument, as in COUNT(*) but found ','");
    expect(parseError("COUNT(x, *)").message).toBe("Expected an expression but found '*'");
  });

  it("reads time units as bare keywords, case-insensitively, in the unit position only", () => {
    expect(parsedAs("TIME_ADD(day, 7, order_date)")).toBe("(TIME_ADD #DAY 7 order_date)");
    expect(parsedAs("TRUNCATE_TIME(Month, d)")).toBe("(TRUNCATE_TIME #MONTH d)");
    expect(parsedAs("TIME_DIFF(MILLISECOND, a, b)")).toBe("(TIME_DIFF #MILLISECOND a b)");
    expect(parsedAs("TIME_ADD(DAY, day, year)")).toBe("(TIME_ADD #DAY day year)");
  });

  it("rejects a quoted or unknown unit, hinting at the bare form", () => {
    const error = parseError("TIME_ADD('day', 1, d)");
    expect(error.message).toBe(
      "Expected a time unit (MILLISECOND, SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR) as the first argument of TIME_ADD but found string 'day'; write the unit without quotes, as in DAY",
    );
    expect(error.column).toBe(10);
    expect(parseError("EXTRACT(DECADE FROM d)").message).toMatch(/^Expected a time unit .* but found name 'DECADE'$/);
  });

  it("reads EXTRACT in the SQL form and the function form as the same tree", () => {
    const sqlForm = parseOk("EXTRACT(YEAR FROM order_date)");
    const functionForm = parseOk("extract(year, order_date)");
    expect(withoutPositions(sqlForm)).toEqual(withoutPositions(functionForm));
    expect(parsedAs("EXTRACT(QUARTER from from)")).toBe("(EXTRACT #QUARTER from)");
  });

  it("accepts FROM only after EXTRACT's unit", () => {
    expect(parseError("TRUNCATE_TIME(YEAR FROM d)").message).toBe(
      "Expected ',' or ')' in the arguments of TRUNCATE_TIME but found name 'FROM'",
    );
    expect(parseError("ROUND(1 FROM 2)").message).toBe("Expected ',' or ')' in the arguments of ROUND but found name 'FROM'");
  });

  it("reports an unclosed argument list", () => {
    expect(parseError("SUM(x").message).toBe("Expected ',' or ')' in the arguments of SUM but found end of expression");
  });
});

describe("WHERE filters", () => {
  it("binds to the aggregate call before it and extends over AND and OR", () => {
    expect(parsedAs("COUNT(x) WHERE code IN ('LAX', 'ORD')")).toBe("(COUNT x :where (IN code 'LAX' 'ORD'))");
    expect(parsedAs("SUM(x) WHERE a = 1 AND b = 2")).toBe("(SUM x :where (AND (= a 1) (= b 2)))");
    expect(parsedAs("SUM(x) WHERE a = 1 OR b = 2")).toBe("(SUM x :where (OR (= a 1) (= b 2)))");
  });

  it("ends at a closing parenthesis, a comma or a CASE keyword", () => {
    expect(parsedAs("(SUM(x) WHERE a = 1) / SUM(y)")).toBe("(/ (SUM x :where (= a 1)) (SUM y))");
    expect(parsedAs("ROUND(SUM(x) WHERE a = 1, 2)")).toBe("(ROUND (SUM x :where (= a 1)) 2)");
    expect(parsedAs("CASE WHEN COUNT(*) WHERE a THEN 1 END")).toBe("(CASE (WHEN (COUNT * :where a) 1))");
  });

  it("takes the rest of the expression when written after an operator", () => {
    expect(parsedAs("1 + SUM(x) WHERE a = 1 / 2")).toBe("(+ 1 (SUM x :where (= a (/ 1 2))))");
  });

  it("must follow a call", () => {
    const error = parseError("x WHERE a = 1");
    expect(error.message).toBe("WHERE must directly follow an aggregate call, as in COUNT(x) WHERE code = 'LAX'");
    expect(error.column).toBe(3);
    expect(parseError("(SUM(x)) WHERE a").message).toMatch(/^WHERE must directly follow/);
  });
});

describe("syntax error positions", () => {
  it("gives 1-based line and column of the offending token", () => {
    expect(parseError("SUM(x) +")).toMatchObject({ line: 1, column: 9, message: "Expected an expression but found end of expression" });
    expect(parseError("SUM(x)\n  + \n  )")).toMatchObject({ line: 3, column: 3, message: "Expected an expression but found ')'" });
    expect(parseError("a +\r\nb +\rc d")).toMatchObject({ line: 3, column: 3 });
    expect(parseError("'multi\nline' +\n  'x' 'y'")).toMatchObject({ line: 3, column: 7 });
  });

  it("reports unexpected characters with hints", () => {
    expect(parseError("a % b")).toMatchObject({ column: 3, message: "Unexpected character '%'; use MOD(a, b) for the remainder" });
    expect(parseError("a @ b").message).toBe("Unexpected character '@'");
    expect(parseError("a \u0000 b").message).toBe("Unexpected character U+0000");
    expect(parseError("a ! b").message).toBe("Unexpected character '!'");
  });

  it("reports empty input, unmatched parentheses and trailing tokens", () => {
    expect(parseError("")).toMatchObject({ line: 1, column: 1, message: "Expression is empty" });
    expect(parseError(" \n\t ")).toMatchObject({ line: 2, column: 3, message: "Expression is empty" });
    expect(parseError("(a + b))")).toMatchObject({ column: 8, message: "Unmatched ')'" });
    expect(parseError("(a + b").message).toBe("Expected ')' but found end of expression");
    expect(parseError("SUM(x) SUM(y)").message).toBe("Expected an operator or the end of the expression but found name 'SUM'");
    expect(parseError("1 + THEN").message).toBe("Expected an expression but found THEN");
  });

  it("reports an unterminated string at its opening quote", () => {
    expect(parseError("CONCAT(a,\n 'abc)")).toMatchObject({ line: 2, column: 2, message: "Unterminated string literal" });
  });
});

describe("nesting limit", () => {
  const nested = (depth: number): string => `${"(".repeat(depth)}1${")".repeat(depth)}`;

  it(`accepts ${MAX_NESTING_DEPTH} levels and refuses one more`, () => {
    expect(parseOk(nested(MAX_NESTING_DEPTH))).toMatchObject({ kind: "number", text: "1" });
    const error = parseError(nested(MAX_NESTING_DEPTH + 1));
    expect(error.message).toBe("Expression is nested too deeply (maximum 64 levels)");
    expect(error.column).toBe(MAX_NESTING_DEPTH + 1);
  });

  it("counts calls, CASE, NOT and unary minus as levels", () => {
    expect(parseError(`${"ABS(".repeat(65)}1${")".repeat(65)}`).message).toMatch(/nested too deeply/);
    expect(parseError(`${"CASE WHEN ".repeat(65)}`).message).toMatch(/nested too deeply/);
    expect(parseError(`${"NOT ".repeat(65)}a`).message).toMatch(/nested too deeply/);
    expect(parseError(`${"-".repeat(65)}1`).message).toMatch(/nested too deeply/);
    expect(parseOk(`${"-".repeat(64)}1`)).toMatchObject({ kind: "unary" });
  });
});

it("attaches positions to nodes", () => {
  const ast = parseOk("a +\n  SUM(b)");
  expect(ast).toMatchObject({
    kind: "binary",
    position: { offset: 2, line: 1, column: 3 },
    left: { position: { offset: 0, line: 1, column: 1 } },
    right: { kind: "call", position: { offset: 6, line: 2, column: 3 } },
  });
});

it("never throws, returning errors as values", () => {
  expect(() => parseExpression("(((")).not.toThrow();
  expect(parseExpression("1 +")).toMatchObject({ ok: false, error: { type: "SYNTAX" } });
});
