import type { BinaryOperator, Expression } from "./ast";

/**
 * Binding strength, loosest first. The parser encodes these levels in its call
 * structure; the printer and the catalogue read them from here.
 */
export const Precedence = {
  /** `AGG(x) WHERE condition`: the condition runs to the end of the enclosing slot. */
  filteredAggregate: 0,
  or: 1,
  and: 2,
  not: 3,
  comparison: 4,
  additive: 5,
  multiplicative: 6,
  unaryMinus: 7,
  primary: 8,
} as const;

export type PrecedenceLevel = (typeof Precedence)[keyof typeof Precedence];

const BINARY_PRECEDENCE: Readonly<Record<BinaryOperator, PrecedenceLevel>> = {
  OR: Precedence.or,
  AND: Precedence.and,
  "=": Precedence.comparison,
  "!=": Precedence.comparison,
  "<": Precedence.comparison,
  "<=": Precedence.comparison,
  ">": Precedence.comparison,
  ">=": Precedence.comparison,
  "+": Precedence.additive,
  "-": Precedence.additive,
  "*": Precedence.multiplicative,
  "/": Precedence.multiplicative,
};

export function binaryPrecedence(operator: BinaryOperator): PrecedenceLevel {
  return BINARY_PRECEDENCE[operator];
}

export function precedenceOf(node: Expression): PrecedenceLevel {
  switch (node.kind) {
    case "binary":
      return binaryPrecedence(node.operator);
    case "unary":
      return node.operator === "NOT" ? Precedence.not : Precedence.unaryMinus;
    case "in":
    case "between":
    case "isNull":
      return Precedence.comparison;
    case "call":
      return node.filter === null ? Precedence.primary : Precedence.filteredAggregate;
    default:
      return Precedence.primary;
  }
}

export interface OperatorDescription {
  readonly operator: string;
  readonly syntax: string;
  readonly description: string;
  /** 1 binds loosest; equal numbers bind equally and group left to right. */
  readonly precedence: number;
}

export const OPERATOR_DESCRIPTIONS: readonly OperatorDescription[] = [
  { operator: "OR", syntax: "a OR b", description: "True when either condition is true.", precedence: Precedence.or },
  { operator: "AND", syntax: "a AND b", description: "True when both conditions are true.", precedence: Precedence.and },
  { operator: "NOT", syntax: "NOT a", description: "Negates a condition.", precedence: Precedence.not },
  { operator: "=", syntax: "a = b", description: "Equal.", precedence: Precedence.comparison },
  { operator: "!=", syntax: "a != b", description: "Not equal; <> is accepted too.", precedence: Precedence.comparison },
  { operator: "<", syntax: "a < b", description: "Less than.", precedence: Precedence.comparison },
  { operator: "<=", syntax: "a <= b", description: "Less than or equal.", precedence: Precedence.comparison },
  { operator: ">", syntax: "a > b", description: "Greater than.", precedence: Precedence.comparison },
  { operator: ">=", syntax: "a >= b", description: "Greater than or equal.", precedence: Precedence.comparison },
  { operator: "IN", syntax: "code IN ('LAX', 'ORD')", description: "True when the value equals one in the list.", precedence: Precedence.comparison },
  { operator: "NOT IN", syntax: "code NOT IN ('LAX', 'ORD')", description: "True when the value equals none in the list.", precedence: Precedence.comparison },
  { operator: "BETWEEN", syntax: "price BETWEEN 10 AND 20", description: "Inclusive range test.", precedence: Precedence.comparison },
  { operator: "NOT BETWEEN", syntax: "price NOT BETWEEN 10 AND 20", description: "Outside an inclusive range.", precedence: Precedence.comparison },
  { operator: "IS NULL", syntax: "discount IS NULL", description: "True when the value is null.", precedence: Precedence.comparison },
  { operator: "IS NOT NULL", syntax: "discount IS NOT NULL", description: "True when the value is not null.", precedence: Precedence.comparison },
  { operator: "+", syntax: "a + b", description: "Addition.", precedence: Precedence.additive },
  { operator: "-", syntax: "a - b", description: "Subtraction.", precedence: Precedence.additive },
  { operator: "*", syntax: "a * b", description: "Multiplication.", precedence: Precedence.multiplicative },
  { operator: "/", syntax: "a / b", description: "Division; the result is always NUMBER.", precedence: Precedence.multiplicative },
  { operator: "- (unary)", syntax: "-a", description: "Negation.", precedence: Precedence.unaryMinus },
];
