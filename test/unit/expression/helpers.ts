import { expect } from "vitest";
import {
  parseExpression,
  type CallArgument,
  type DataType,
  type Expression,
  type ExpressionContext,
  type ExpressionError,
} from "../../../src/domain/expression";

/** Parses text that must be valid and returns its tree. */
export function parseOk(text: string): Expression {
  const result = parseExpression(text);
  if (!result.ok) throw new Error(`Expected ${JSON.stringify(text)} to parse, got ${JSON.stringify(result.error)}`);
  return result.ast;
}

/** Parses text that must be invalid and returns its syntax error. */
export function parseError(text: string): ExpressionError {
  const result = parseExpression(text);
  if (result.ok) throw new Error(`Expected ${JSON.stringify(text)} not to parse`);
  expect(result.error.type).toBe("SYNTAX");
  return result.error;
}

/**
 * A compact, fully parenthesised rendering that makes grouping visible:
 * `1 + 2 * 3` becomes `(+ 1 (* 2 3))`.
 */
export function sexpr(node: CallArgument): string {
  switch (node.kind) {
    case "number":
      return node.text;
    case "string":
      return `'${node.value}'`;
    case "boolean":
      return node.value ? "TRUE" : "FALSE";
    case "null":
      return "NULL";
    case "name":
      return node.name;
    case "star":
      return "*";
    case "timeUnit":
      return `#${node.unit}`;
    case "unary":
      return `(${node.operator} ${sexpr(node.operand)})`;
    case "binary":
      return `(${node.operator} ${sexpr(node.left)} ${sexpr(node.right)})`;
    case "in":
      return `(${node.negated ? "NOT-IN" : "IN"} ${[node.operand, ...node.values].map(sexpr).join(" ")})`;
    case "between":
      return `(${node.negated ? "NOT-BETWEEN" : "BETWEEN"} ${sexpr(node.operand)} ${sexpr(node.low)} ${sexpr(node.high)})`;
    case "isNull":
      return `(${node.negated ? "IS-NOT-NULL" : "IS-NULL"} ${sexpr(node.operand)})`;
    case "case": {
      const parts = ["CASE"];
      if (node.operand !== null) parts.push(sexpr(node.operand));
      for (const branch of node.branches) parts.push(`(WHEN ${sexpr(branch.when)} ${sexpr(branch.then)})`);
      if (node.otherwise !== null) parts.push(`(ELSE ${sexpr(node.otherwise)})`);
      return `(${parts.join(" ")})`;
    }
    case "call": {
      const parts = [node.name, ...node.args.map(sexpr)];
      if (node.filter !== null) parts.push(`:where ${sexpr(node.filter)}`);
      return `(${parts.join(" ")})`;
    }
  }
}

export function parsedAs(text: string): string {
  return sexpr(parseOk(text));
}

/** A small source: fields of every type and two custom metrics. */
export function sampleContext(overrides: Partial<ExpressionContext> = {}): ExpressionContext {
  const fields = new Map<string, { dataType: DataType }>([
    ["price", { dataType: "NUMBER" }],
    ["discount", { dataType: "NUMBER" }],
    ["profit", { dataType: "NUMBER" }],
    ["angle", { dataType: "NUMBER" }],
    ["ratio", { dataType: "NUMBER" }],
    ["quantity", { dataType: "INTEGER" }],
    ["customer_id", { dataType: "INTEGER" }],
    ["created_epoch", { dataType: "INTEGER" }],
    ["city", { dataType: "ATTRIBUTE" }],
    ["country", { dataType: "ATTRIBUTE" }],
    ["code", { dataType: "ATTRIBUTE" }],
    ["comment", { dataType: "TEXT" }],
    ["zip_code", { dataType: "TEXT" }],
    ["order_date", { dataType: "TIME" }],
    ["ship_date", { dataType: "TIME" }],
    ["unknown_type", { dataType: "NULL" }],
    ["geography", { dataType: "HIERARCHY" }],
    ["größe", { dataType: "NUMBER" }],
    ["order date", { dataType: "TIME" }],
  ]);
  const metrics = new Map<string, { dataType: DataType }>([
    ["Volume", { dataType: "INTEGER" }],
    ["Revenue", { dataType: "NUMBER" }],
    ["TopCity", { dataType: "ATTRIBUTE" }],
  ]);
  return { fields, metrics, ...overrides };
}
