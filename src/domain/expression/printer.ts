import type { CallArgument, Expression, FunctionCall } from "./ast";
import { lookupFunction } from "./functions";
import { binaryPrecedence, Precedence, precedenceOf, type PrecedenceLevel } from "./operators";
import { isBareName } from "./tokens";

/**
 * Canonical text: upper-case keywords and function names, single spaces, and only
 * the parentheses the tree needs. For every tree the parser produces,
 * `parseExpression(printExpression(tree))` gives the same tree back (positions aside).
 * A filtered aggregate is parenthesised unless it fills a whole slot (the root, an
 * argument, a list value, a CASE part), because its WHERE condition would otherwise
 * swallow what follows.
 */
export function printExpression(node: Expression): string {
  return printSlot(node);
}

/**
 * A slot the parser reads at the loosest level, ended by `,`, `)`, a CASE keyword or
 * the end of the text: nothing in it needs parentheses.
 */
function printSlot(node: Expression): string {
  return printNode(node);
}

function printOperand(node: Expression, minimum: PrecedenceLevel): string {
  const text = printNode(node);
  return precedenceOf(node) < minimum ? `(${text})` : text;
}

function printNode(node: Expression): string {
  switch (node.kind) {
    case "number":
      return node.text;
    case "string":
      return `'${node.value.replaceAll("'", "''")}'`;
    case "boolean":
      return node.value ? "TRUE" : "FALSE";
    case "null":
      return "NULL";
    case "name":
      return printName(node.name);
    case "unary":
      // Nested minus signs print as `--x`: there are no comments to clash with.
      return node.operator === "NOT"
        ? `NOT ${printOperand(node.operand, Precedence.not)}`
        : `-${printOperand(node.operand, Precedence.unaryMinus)}`;
    case "binary": {
      const precedence = binaryPrecedence(node.operator);
      // Comparisons do not chain, so neither side may be another comparison.
      const leftMinimum = precedence === Precedence.comparison ? Precedence.additive : precedence;
      const rightMinimum = precedence === Precedence.comparison ? Precedence.additive : ((precedence + 1) as PrecedenceLevel);
      return `${printOperand(node.left, leftMinimum)} ${node.operator} ${printOperand(node.right, rightMinimum)}`;
    }
    case "in": {
      const values = node.values.map(printSlot).join(", ");
      return `${printOperand(node.operand, Precedence.additive)} ${node.negated ? "NOT IN" : "IN"} (${values})`;
    }
    case "between": {
      const operand = printOperand(node.operand, Precedence.additive);
      const low = printOperand(node.low, Precedence.additive);
      const high = printOperand(node.high, Precedence.additive);
      return `${operand} ${node.negated ? "NOT BETWEEN" : "BETWEEN"} ${low} AND ${high}`;
    }
    case "isNull":
      return `${printOperand(node.operand, Precedence.additive)} ${node.negated ? "IS NOT NULL" : "IS NULL"}`;
    case "case": {
      const parts = ["CASE"];
      if (node.operand !== null) parts.push(printSlot(node.operand));
      for (const branch of node.branches) parts.push("WHEN", printSlot(branch.when), "THEN", printSlot(branch.then));
      if (node.otherwise !== null) parts.push("ELSE", printSlot(node.otherwise));
      parts.push("END");
      return parts.join(" ");
    }
    case "call":
      return printCall(node);
  }
}

function printCall(node: FunctionCall): string {
  const definition = lookupFunction(node.name);
  const [first, ...rest] = node.args;
  const useFrom = definition?.unitFromSyntax === true && node.args.length === 2 && first?.kind === "timeUnit";
  const args = useFrom ? `${printArgument(first)} FROM ${rest.map(printArgument).join("")}` : node.args.map(printArgument).join(", ");
  const call = `${node.name}(${args})`;
  return node.filter === null ? call : `${call} WHERE ${printSlot(node.filter)}`;
}

function printArgument(argument: CallArgument): string {
  switch (argument.kind) {
    case "star":
      return "*";
    case "timeUnit":
      return argument.unit;
    default:
      return printSlot(argument);
  }
}

/** Names that match the bare pattern and are not reserved print as they are. */
function printName(name: string): string {
  return isBareName(name) ? name : `"${name.replaceAll('"', '""')}"`;
}
