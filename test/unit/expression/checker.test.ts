import { describe, expect, it } from "vitest";
import { checkExpression, type ExpressionContext, type ExpressionLevel } from "../../../src/domain/expression";
import { sampleContext } from "./helpers";

const context = sampleContext();

function typeOf(text: string, level: ExpressionLevel, checkContext: ExpressionContext = context): string {
  const result = checkExpression(text, checkContext, level);
  if (!result.ok) throw new Error(`Expected ${JSON.stringify(text)} to check, got ${JSON.stringify(result.error)}`);
  return result.dataType;
}

function errorOf(text: string, level: ExpressionLevel, checkContext: ExpressionContext = context) {
  const result = checkExpression(text, checkContext, level);
  if (result.ok) throw new Error(`Expected ${JSON.stringify(text)} to fail, got ${result.dataType}`);
  return result.error;
}

function validationMessage(text: string, level: ExpressionLevel, checkContext: ExpressionContext = context): string {
  const error = errorOf(text, level, checkContext);
  expect(error.type).toBe("VALIDATION");
  return error.message;
}

const metric = (text: string): string => typeOf(text, "aggregate");
const derived = (text: string): string => typeOf(text, "row");

describe("literal and field types", () => {
  it.each([
    ["42", "INTEGER"],
    ["4.2", "NUMBER"],
    ["1e3", "NUMBER"],
    ["'x'", "TEXT"],
    ["NULL", "NULL"],
    ["price", "NUMBER"],
    ["quantity", "INTEGER"],
    ["city", "ATTRIBUTE"],
    ["comment", "TEXT"],
    ["order_date", "TIME"],
    ["unknown_type", "NULL"],
    ["größe", "NUMBER"],
    ['"order date"', "TIME"],
  ])("row level %s is %s", (text, type) => {
    expect(derived(text)).toBe(type);
  });
});

describe("aggregate result types", () => {
  it.each([
    ["COUNT(city)", "INTEGER"],
    ["COUNT(*)", "INTEGER"],
    ["COUNTD(customer_id)", "INTEGER"],
    ["SUM(quantity)", "INTEGER"],
    ["SUM(price)", "NUMBER"],
    ["AVG(quantity)", "NUMBER"],
    ["MEDIAN(quantity)", "NUMBER"],
    ["STDDEV_POP(quantity)", "NUMBER"],
    ["STDDEV_SAMP(price)", "NUMBER"],
    ["VAR_POP(quantity)", "NUMBER"],
    ["VAR_SAMP(price)", "NUMBER"],
    ["MIN(order_date)", "TIME"],
    ["MAX(city)", "ATTRIBUTE"],
    ["MIN(quantity)", "INTEGER"],
    ["FIRST_VALUE(comment)", "TEXT"],
    ["LAST_VALUE(price)", "NUMBER"],
  ])("%s is %s", (text, type) => {
    expect(metric(text)).toBe(type);
  });

  it("requires numeric arguments for SUM, AVG and the statistics", () => {
    expect(validationMessage("SUM(city)", "aggregate")).toBe("Argument 'value' of SUM must be INTEGER or NUMBER, got ATTRIBUTE");
    expect(validationMessage("AVG(order_date)", "aggregate")).toBe("Argument 'value' of AVG must be INTEGER or NUMBER, got TIME");
    expect(validationMessage("VAR_POP('x')", "aggregate")).toBe("Argument 'value' of VAR_POP must be INTEGER or NUMBER, got TEXT");
  });
});

describe("arithmetic", () => {
  it.each([
    ["quantity + quantity", "INTEGER"],
    ["quantity * 2 - 1", "INTEGER"],
    ["quantity + price", "NUMBER"],
    ["quantity / quantity", "NUMBER"],
    ["4 / 2", "NUMBER"],
    ["-quantity", "INTEGER"],
    ["-price", "NUMBER"],
    ["quantity + NULL", "INTEGER"],
  ])("%s is %s", (text, type) => {
    expect(derived(text)).toBe(type);
  });

  it("rejects non-numbers with a hint", () => {
    expect(validationMessage("comment + 1", "row")).toBe("Operator '+' needs numbers on both sides, got TEXT and INTEGER; use CONCAT to join text");
    expect(validationMessage("order_date - 1", "row")).toBe(
      "Operator '-' needs numbers on both sides, got TIME and INTEGER; use TIME_ADD or TIME_DIFF for time arithmetic",
    );
    expect(validationMessage("city * 2", "row")).toBe("Operator '*' needs numbers on both sides, got ATTRIBUTE and INTEGER");
    expect(validationMessage("-city", "row")).toBe("Unary '-' needs a number, got ATTRIBUTE");
  });

  it("points at the operator", () => {
    expect(errorOf("price +\n  comment", "row")).toMatchObject({ line: 1, column: 7 });
  });
});

describe("CASE", () => {
  it("widens INTEGER and NUMBER to NUMBER", () => {
    expect(derived("CASE WHEN price > 1 THEN quantity ELSE price END")).toBe("NUMBER");
  });

  it("mixes TEXT and ATTRIBUTE into ATTRIBUTE", () => {
    expect(derived("CASE WHEN price > 1 THEN 'big' ELSE city END")).toBe("ATTRIBUTE");
    expect(derived("CASE WHEN price > 1 THEN 'big' ELSE 'small' END")).toBe("TEXT");
  });

  it("lets NULL branches take the other branches' type", () => {
    expect(derived("CASE WHEN price > 1 THEN NULL ELSE order_date END")).toBe("TIME");
    expect(derived("CASE WHEN price > 1 THEN quantity END")).toBe("INTEGER");
    expect(derived("CASE WHEN price > 1 THEN NULL END")).toBe("NULL");
  });

  it("requires results of one type and names both", () => {
    const error = errorOf("CASE WHEN price > 1 THEN 'big'\n  ELSE 1 + 2 END", "row");
    expect(error).toMatchObject({ type: "VALIDATION", message: "CASE results must all have the same type, got TEXT and INTEGER", line: 2, column: 8 });
    expect(validationMessage("CASE WHEN price > 1 THEN order_date ELSE quantity END", "row")).toBe(
      "CASE results must all have the same type, got TIME and INTEGER",
    );
  });

  it("requires conditions after WHEN in the searched form", () => {
    expect(validationMessage("CASE WHEN price THEN 1 END", "row")).toBe("WHEN needs a condition (BOOLEAN), got NUMBER");
  });

  it("compares the operand with each WHEN value in the simple form", () => {
    expect(derived("CASE code WHEN 'LAX' THEN 1 WHEN 'ORD' THEN 2.5 ELSE 0 END")).toBe("NUMBER");
    expect(validationMessage("CASE code WHEN 1 THEN 'one' END", "row")).toBe("Cannot compare ATTRIBUTE with INTEGER in CASE ... WHEN");
  });

  it("works at aggregate level on aggregated values", () => {
    expect(metric("CASE WHEN SUM(price) > 100 THEN 'high' ELSE 'low' END")).toBe("TEXT");
    expect(validationMessage("CASE WHEN price > 100 THEN 1 END", "aggregate")).toMatch(/^Field 'price' must be aggregated/);
  });
});

describe("COALESCE", () => {
  it("returns the arguments' common type", () => {
    expect(derived("COALESCE(quantity, 0)")).toBe("INTEGER");
    expect(derived("COALESCE(quantity, price, 0)")).toBe("NUMBER");
    expect(derived("COALESCE(comment, city)")).toBe("ATTRIBUTE");
    expect(derived("COALESCE(NULL, order_date)")).toBe("TIME");
    expect(metric("COALESCE(SUM(price), 0)")).toBe("NUMBER");
  });

  it("rejects incompatible arguments, naming both types", () => {
    const error = errorOf("COALESCE(quantity, 'none')", "row");
    expect(error).toMatchObject({ message: "Arguments of COALESCE must have compatible types, got INTEGER and TEXT", column: 20 });
  });
});

describe("conditions", () => {
  it("are BOOLEAN inside expressions", () => {
    expect(derived("CASE WHEN price > 1 AND NOT (city = 'Paris' OR city IS NULL) THEN 1 ELSE 0 END")).toBe("INTEGER");
    expect(derived("CASE WHEN code IN ('LAX', 'ORD') AND price BETWEEN 1 AND 2.5 THEN 1 END")).toBe("INTEGER");
    expect(derived("CASE WHEN (price > 1) = (quantity > 2) THEN 1 END")).toBe("INTEGER");
    expect(derived("CASE WHEN TRUE THEN 1 END")).toBe("INTEGER");
  });

  it("are rejected as a whole expression at both levels", () => {
    const rowError = errorOf("price\n  > 1", "row");
    expect(rowError).toMatchObject({
      type: "VALIDATION",
      message: "The expression is a condition (BOOLEAN), but a derived field must produce a value; wrap it in CASE WHEN ... THEN ... ELSE ... END",
      line: 1,
      column: 1,
    });
    expect(validationMessage("SUM(price) > 1", "aggregate")).toMatch(/^The expression is a condition \(BOOLEAN\), but a custom metric/);
    expect(validationMessage("TRUE", "row")).toMatch(/condition \(BOOLEAN\)/);
    expect(validationMessage("CASE WHEN price > 1 THEN price > 2 END", "row")).toMatch(/condition \(BOOLEAN\)/);
  });

  it("need comparable operands", () => {
    expect(validationMessage("CASE WHEN city = 1 THEN 1 END", "row")).toBe("Cannot compare ATTRIBUTE with INTEGER with '='");
    expect(validationMessage("CASE WHEN quantity IN (1, 'two') THEN 1 END", "row")).toBe("Cannot compare INTEGER with TEXT in the IN list");
    expect(validationMessage("CASE WHEN price BETWEEN 1 AND 'z' THEN 1 END", "row")).toBe("Cannot compare NUMBER with TEXT in BETWEEN");
    expect(validationMessage("CASE WHEN (price > 1) < (price > 2) THEN 1 END", "row")).toBe("Conditions (BOOLEAN) cannot be ordered with '<'");
    expect(derived("CASE WHEN comment = city AND quantity < price THEN 1 END")).toBe("INTEGER");
  });

  it("compare TIME with ISO 8601 text literals only", () => {
    expect(derived("CASE WHEN order_date >= '2024-01-31' THEN 1 END")).toBe("INTEGER");
    expect(derived("CASE WHEN order_date BETWEEN '2024-01-01' AND '2024-12-31T23:59:59.999Z' THEN 1 END")).toBe("INTEGER");
    expect(derived("CASE WHEN order_date IN ('2024-01-01 10:00', '2024-01-02T00:00:00+02:00') THEN 1 END")).toBe("INTEGER");
    const error = errorOf("CASE WHEN order_date > 'yesterday' THEN 1 END", "row");
    expect(error).toMatchObject({
      message: "'yesterday' is not a valid time; write times as ISO 8601 text such as '2024-01-31' or '2024-01-31T12:00:00Z'",
      column: 24,
    });
    expect(validationMessage("CASE WHEN order_date > '2024-13-01' THEN 1 END", "row")).toMatch(/is not a valid time/);
    expect(validationMessage("CASE WHEN order_date > comment THEN 1 END", "row")).toBe("Cannot compare TIME with TEXT with '>'");
  });

  it("need BOOLEAN operands for AND, OR and NOT", () => {
    expect(validationMessage("CASE WHEN price AND TRUE THEN 1 END", "row")).toBe(
      "Operator 'AND' needs conditions (BOOLEAN) on both sides, got NUMBER and BOOLEAN",
    );
    expect(validationMessage("CASE WHEN TRUE OR 'x' THEN 1 END", "row")).toBe("Operator 'OR' needs conditions (BOOLEAN) on both sides, got BOOLEAN and TEXT");
    expect(validationMessage("CASE WHEN NOT price THEN 1 END", "row")).toBe("NOT needs a condition (BOOLEAN), got NUMBER");
  });
});

describe("names", () => {
  it("reports an unknown name, naming it, at its position", () => {
    expect(errorOf("SUM(price) +\n   SUM(nope)", "aggregate")).toEqual({ type: "VALIDATION", message: "Field 'nope' not found", line: 2, column: 8 });
    expect(validationMessage("nope", "aggregate")).toBe("Field 'nope' not found");
    expect(validationMessage("Price", "row")).toBe("Field 'Price' not found");
  });

  it("rejects hierarchy fields", () => {
    expect(validationMessage("COUNT(geography)", "aggregate")).toBe("Field 'geography' is a hierarchy and cannot be used in expressions");
    expect(validationMessage("geography", "row")).toBe("Field 'geography' is a hierarchy and cannot be used in expressions");
  });

  it("rejects a reference to the metric or field being defined", () => {
    const selfMetric = sampleContext({ selfName: "Revenue" });
    expect(errorOf("Revenue * 2", "aggregate", selfMetric)).toEqual({
      type: "VALIDATION",
      message: "Custom metric 'Revenue' cannot reference itself",
      line: 1,
      column: 1,
    });
    expect(validationMessage("SUM(price) + NewMetric", "aggregate", sampleContext({ selfName: "NewMetric" }))).toBe(
      "Custom metric 'NewMetric' cannot reference itself",
    );
    expect(validationMessage("price + 1", "row", sampleContext({ selfName: "price" }))).toBe("Derived field 'price' cannot reference itself");
  });

  it("resolves a name used as both field and metric by level", () => {
    const fields = new Map([["total", { dataType: "INTEGER" as const }]]);
    const metrics = new Map([["total", { dataType: "NUMBER" as const }]]);
    const ambiguous = { fields, metrics };
    expect(typeOf("total", "aggregate", ambiguous)).toBe("NUMBER");
    expect(typeOf("SUM(total)", "aggregate", ambiguous)).toBe("INTEGER");
    expect(typeOf("total", "row", ambiguous)).toBe("INTEGER");
  });
});

describe("functions", () => {
  it("reports an unsupported function with the exact wording", () => {
    expect(errorOf("1 + foo(price)", "row")).toEqual({ type: "VALIDATION", message: "Function 'FOO' not supported", line: 1, column: 5 });
    expect(validationMessage("ABS(price)", "row")).toBe("Function 'ABS' not supported");
  });

  it("checks arity", () => {
    expect(validationMessage("ROUND(price, 1, 2)", "row")).toBe("Function 'ROUND' expects 1 to 2 arguments, got 3");
    expect(validationMessage("PI(1)", "row")).toBe("Function 'PI' expects no arguments, got 1");
    expect(validationMessage("POWER(2)", "row")).toBe("Function 'POWER' expects 2 arguments, got 1");
    expect(validationMessage("SQRT()", "row")).toBe("Function 'SQRT' expects 1 argument, got 0");
    expect(validationMessage("COALESCE()", "row")).toBe("Function 'COALESCE' expects at least 1 argument, got 0");
    expect(validationMessage("COUNT()", "aggregate")).toBe("Function 'COUNT' expects 1 argument, got 0");
    expect(validationMessage("TIME_ADD(DAY, 1)", "row")).toBe("Function 'TIME_ADD' expects 3 arguments, got 2");
  });

  it("accepts * only in COUNT", () => {
    expect(errorOf("SUM(*)", "aggregate")).toMatchObject({ message: "Function 'SUM' does not accept '*'; only COUNT(*) does", column: 5 });
  });

  it("checks argument types and accepts NULL anywhere", () => {
    expect(errorOf("SQRT(comment)", "row")).toMatchObject({ message: "Argument 'value' of SQRT must be INTEGER or NUMBER, got TEXT", column: 6 });
    expect(validationMessage("ROUND(price, 1.5)", "row")).toBe("Argument 'decimals' of ROUND must be INTEGER, got NUMBER");
    expect(validationMessage("TIME_ADD(DAY, 1.5, order_date)", "row")).toBe("Argument 'amount' of TIME_ADD must be INTEGER, got NUMBER");
    expect(validationMessage("LENGTH(price)", "row")).toBe("Argument 'text' of LENGTH must be TEXT or ATTRIBUTE, got NUMBER");
    expect(validationMessage("COUNT(price > 1)", "aggregate")).toBe(
      "Argument 'value' of COUNT must be INTEGER, NUMBER, TEXT, ATTRIBUTE or TIME, got BOOLEAN",
    );
    expect(derived("SQRT(NULL)")).toBe("NUMBER");
  });

  it.each([
    ["POWER(quantity, 2)", "NUMBER"],
    ["MOD(quantity, 3)", "INTEGER"],
    ["MOD(price, 3)", "NUMBER"],
    ["SQRT(quantity) + LN(price) + LOG10(price) + EXP(1)", "NUMBER"],
    ["CEIL(price)", "INTEGER"],
    ["FLOOR(price)", "INTEGER"],
    ["ROUND(price)", "NUMBER"],
    ["ROUND(quantity, 2)", "INTEGER"],
    ["SIGN(price)", "INTEGER"],
    ["SIN(angle) + COS(angle) + TAN(angle) + COT(angle) + ASIN(ratio) + ACOS(ratio) + ATAN(ratio)", "NUMBER"],
    ["PI()", "NUMBER"],
    ["DEGREES(angle) + RADIANS(angle)", "NUMBER"],
    ["CONCAT(city, ', ', country)", "ATTRIBUTE"],
    ["CONCAT('a', comment, quantity)", "TEXT"],
    ["LENGTH(comment)", "INTEGER"],
    ["LOCATE('-', code)", "INTEGER"],
    ["LOCATE('-', code, 2)", "INTEGER"],
    ["LOWER(city)", "ATTRIBUTE"],
    ["UPPER(comment)", "TEXT"],
    ["LPAD(code, 6, '0')", "ATTRIBUTE"],
    ["RPAD(comment, 6)", "TEXT"],
    ["LTRIM(city)", "ATTRIBUTE"],
    ["RTRIM(comment)", "TEXT"],
    ["SUBSTRING(comment, 1, 3)", "TEXT"],
    ["TEXT_TO_NUM(zip_code)", "NUMBER"],
    ["NUM_TO_TEXT(quantity)", "TEXT"],
    ["EXTRACT(YEAR FROM order_date)", "INTEGER"],
    ["EXTRACT(month, order_date)", "INTEGER"],
    ["NOW()", "TIME"],
    ["TIME_ADD(DAY, -7, order_date)", "TIME"],
    ["TIME_DIFF(HOUR, order_date, ship_date)", "INTEGER"],
    ["TRUNCATE_TIME(QUARTER, order_date)", "TIME"],
    ["TIME_TO_UNIX_TIME(order_date)", "INTEGER"],
    ["UNIX_TIME_TO_TIME(created_epoch)", "TIME"],
  ])("row level %s is %s", (text, type) => {
    expect(derived(text)).toBe(type);
  });
});

describe("aggregate level (custom metrics)", () => {
  it("requires fields to be aggregated", () => {
    expect(errorOf("SUM(price) / quantity", "aggregate")).toEqual({
      type: "VALIDATION",
      message: "Field 'quantity' must be aggregated (use it inside an aggregate function such as SUM or COUNT)",
      line: 1,
      column: 14,
    });
  });

  it("uses custom metrics directly, with their type", () => {
    expect(metric("Volume")).toBe("INTEGER");
    expect(metric("Volume * 2")).toBe("INTEGER");
    expect(metric("Revenue / Volume")).toBe("NUMBER");
    expect(metric("TopCity")).toBe("ATTRIBUTE");
  });

  it("accepts constants", () => {
    expect(metric("1")).toBe("INTEGER");
    expect(metric("PI() * 2")).toBe("NUMBER");
  });

  it("applies numeric functions to aggregates, metrics and literals", () => {
    expect(metric("ROUND(AVG(price), 2)")).toBe("NUMBER");
    expect(metric("POWER(Revenue, 2) + SQRT(SUM(quantity))")).toBe("NUMBER");
    expect(validationMessage("ROUND(price)", "aggregate")).toMatch(/^Field 'price' must be aggregated/);
  });

  it("keeps row functions inside aggregates", () => {
    expect(metric("MAX(UPPER(city))")).toBe("ATTRIBUTE");
    expect(metric("SUM(TIME_DIFF(DAY, order_date, ship_date))")).toBe("INTEGER");
    expect(validationMessage("UPPER(MAX(city))", "aggregate")).toBe(
      "Function 'UPPER' works on individual rows and cannot be applied to aggregated values; use it inside an aggregate, as in MAX(UPPER(...))",
    );
  });

  it("checks aggregate arguments at row level", () => {
    expect(metric("SUM(price * quantity)")).toBe("NUMBER");
    expect(errorOf("SUM(MAX(price))", "aggregate")).toMatchObject({
      message: "Aggregate function 'MAX' cannot be nested inside aggregate function 'SUM'",
      column: 5,
    });
    expect(validationMessage("SUM(Revenue)", "aggregate")).toBe(
      "Custom metric 'Revenue' cannot be used inside aggregate function 'SUM', because it is already aggregated",
    );
  });

  it("checks WHERE filters as row-level conditions", () => {
    expect(metric("COUNT(code) WHERE code IN ('LAX', 'ORD')")).toBe("INTEGER");
    expect(metric("(SUM(price) WHERE city = 'Paris' AND quantity > 1) / SUM(price)")).toBe("NUMBER");
    expect(metric("COUNT(*) WHERE UPPER(city) = 'PARIS'")).toBe("INTEGER");
    expect(validationMessage("COUNT(*) WHERE quantity", "aggregate")).toBe("The WHERE filter of COUNT must be a condition (BOOLEAN), got INTEGER");
    expect(validationMessage("COUNT(*) WHERE SUM(price) > 1", "aggregate")).toBe(
      "Aggregate function 'SUM' cannot be used in a WHERE filter, which is evaluated per row",
    );
    expect(validationMessage("COUNT(*) WHERE Volume > 1", "aggregate")).toBe(
      "Custom metric 'Volume' cannot be used in a WHERE filter, which is evaluated per row",
    );
    expect(validationMessage("COUNT(*) WHERE nope = 1", "aggregate")).toBe("Field 'nope' not found");
  });

  it("accepts WHERE only after aggregates", () => {
    expect(validationMessage("ROUND(SUM(price)) WHERE city = 'Paris'", "aggregate")).toBe(
      "A WHERE filter can only follow an aggregate function, and 'ROUND' is not one",
    );
  });
});

describe("row level (derived fields)", () => {
  it("rejects aggregates and custom metrics", () => {
    expect(errorOf("price / SUM(price)", "row")).toEqual({
      type: "VALIDATION",
      message: "Aggregate function 'SUM' is not allowed in a row-level expression",
      line: 1,
      column: 9,
    });
    expect(validationMessage("COUNT(*)", "row")).toBe("Aggregate function 'COUNT' is not allowed in a row-level expression");
    expect(validationMessage("Volume + 1", "row")).toBe("Custom metric 'Volume' cannot be used in a row-level expression");
  });
});

describe("references", () => {
  it("lists distinct fields and metrics in order of first appearance", () => {
    const result = checkExpression(
      "(SUM(price * quantity) WHERE city = 'Paris') / Revenue + COUNTD(city) + Volume - Revenue + MAX(price)",
      context,
      "aggregate",
    );
    expect(result).toMatchObject({ ok: true, referencedFields: ["price", "quantity", "city"], referencedMetrics: ["Revenue", "Volume"] });
  });

  it("lists fields of derived fields and returns the tree", () => {
    const result = checkExpression("CONCAT(city, '-', country, city)", context, "row");
    expect(result).toMatchObject({ ok: true, dataType: "ATTRIBUTE", referencedFields: ["city", "country"], referencedMetrics: [] });
    expect(result.ok && result.ast.kind).toBe("call");
  });
});

it("passes syntax errors through", () => {
  expect(errorOf("SUM(price", "aggregate")).toMatchObject({ type: "SYNTAX", line: 1, column: 10 });
});

it("validates a 1,000-character expression", () => {
  const term = "SUM(price) WHERE code IN ('LAX', 'ORD')";
  const text = Array.from({ length: 25 }, () => `(${term})`).join(" + ");
  expect(text.length).toBeGreaterThan(1000);
  expect(checkExpression(text, context, "aggregate")).toMatchObject({ ok: true, dataType: "NUMBER", referencedFields: ["price", "code"] });
});
