import type { TimeUnit } from "./tokens";

/** Where a node's token starts: 0-based UTF-16 offset, 1-based line and column. */
export interface SourcePosition {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

interface NodeBase {
  readonly position: SourcePosition;
}

/** `text` is kept verbatim so printing never changes a literal (1e3 stays 1e3). */
export interface NumberLiteral extends NodeBase {
  readonly kind: "number";
  readonly text: string;
}

export interface StringLiteral extends NodeBase {
  readonly kind: "string";
  readonly value: string;
}

export interface BooleanLiteral extends NodeBase {
  readonly kind: "boolean";
  readonly value: boolean;
}

export interface NullLiteral extends NodeBase {
  readonly kind: "null";
}

/** A field or custom metric; which one is decided by the checker. */
export interface NameReference extends NodeBase {
  readonly kind: "name";
  readonly name: string;
}

export type UnaryOperator = "NOT" | "-";

export interface UnaryExpression extends NodeBase {
  readonly kind: "unary";
  readonly operator: UnaryOperator;
  readonly operand: Expression;
}

export type LogicalOperator = "OR" | "AND";
export type ComparisonOperator = "=" | "!=" | "<" | "<=" | ">" | ">=";
export type ArithmeticOperator = "+" | "-" | "*" | "/";
export type BinaryOperator = LogicalOperator | ComparisonOperator | ArithmeticOperator;

/** `<>` is read as `!=`: the tree has one spelling per operator. */
export interface BinaryExpression extends NodeBase {
  readonly kind: "binary";
  readonly operator: BinaryOperator;
  readonly left: Expression;
  readonly right: Expression;
}

export interface InExpression extends NodeBase {
  readonly kind: "in";
  readonly negated: boolean;
  readonly operand: Expression;
  readonly values: readonly Expression[];
}

export interface BetweenExpression extends NodeBase {
  readonly kind: "between";
  readonly negated: boolean;
  readonly operand: Expression;
  readonly low: Expression;
  readonly high: Expression;
}

export interface IsNullExpression extends NodeBase {
  readonly kind: "isNull";
  readonly negated: boolean;
  readonly operand: Expression;
}

export interface CaseBranch {
  readonly when: Expression;
  readonly then: Expression;
}

/** `operand` is set for the simple form `CASE x WHEN v THEN r ... END`. */
export interface CaseExpression extends NodeBase {
  readonly kind: "case";
  readonly operand: Expression | null;
  readonly branches: readonly CaseBranch[];
  readonly otherwise: Expression | null;
}

/** `name` is upper-cased (function names are case-insensitive), known or not. */
export interface FunctionCall extends NodeBase {
  readonly kind: "call";
  readonly name: string;
  readonly args: readonly CallArgument[];
  /** The row-level condition of `AGG(x) WHERE condition`. */
  readonly filter: Expression | null;
}

/** The bare unit keyword of EXTRACT, TIME_ADD, TIME_DIFF and TRUNCATE_TIME. */
export interface TimeUnitArgument extends NodeBase {
  readonly kind: "timeUnit";
  readonly unit: TimeUnit;
}

/** The `*` of `COUNT(*)`; only ever the sole argument of a call. */
export interface StarArgument extends NodeBase {
  readonly kind: "star";
}

export type CallArgument = Expression | TimeUnitArgument | StarArgument;

export type Expression =
  | NumberLiteral
  | StringLiteral
  | BooleanLiteral
  | NullLiteral
  | NameReference
  | UnaryExpression
  | BinaryExpression
  | InExpression
  | BetweenExpression
  | IsNullExpression
  | CaseExpression
  | FunctionCall;

/** Where the text of a node begins: binary and postfix forms start at their left operand. */
export function startPosition(node: CallArgument): SourcePosition {
  let current = node;
  for (;;) {
    switch (current.kind) {
      case "binary":
        current = current.left;
        break;
      case "in":
      case "between":
      case "isNull":
        current = current.operand;
        break;
      default:
        return current.position;
    }
  }
}

/** A deep copy without `position` members, for comparing trees by structure. */
export function withoutPositions(node: CallArgument): unknown {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "position") continue;
    copy[key] = stripValue(value);
  }
  return copy;
}

function stripValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripValue);
  if (value !== null && typeof value === "object") {
    if ("kind" in value) return withoutPositions(value as CallArgument);
    const copy: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) copy[key] = stripValue(member);
    return copy;
  }
  return value;
}
