import type {
  BinaryExpression,
  CallArgument,
  CaseExpression,
  Expression,
  FunctionCall,
  NameReference,
  SourcePosition,
  UnaryExpression,
} from "./ast";
import { startPosition } from "./ast";
import { ExpressionValidationError, type ExpressionError } from "./errors";
import { argumentAt, arityOf, isUnitArgument, lookupFunction, type FunctionDefinition } from "./functions";
import { parseExpression } from "./parser";
import { commonType, describeTypes, isCondition, isNumeric, type DataType, type ExpressionType } from "./types";

/** "aggregate" for custom metrics, "row" for derived fields. */
export type ExpressionLevel = "aggregate" | "row";

export interface TypedName {
  readonly dataType: DataType;
}

export interface ExpressionContext {
  readonly fields: ReadonlyMap<string, TypedName>;
  readonly metrics: ReadonlyMap<string, TypedName>;
  /** The metric or field being defined; referencing it is an error. */
  readonly selfName?: string;
}

/** A field or custom metric of a source by name, kind (FIELD or METRIC) and data type. */
export type ItemRef = { name: string; kind: string; dataType: string };

/** The context an expression is checked in: a source's fields and metrics by name, and the item being defined. */
export function expressionContext(items: readonly ItemRef[], selfName?: string): ExpressionContext {
  const fields = new Map<string, TypedName>();
  const metrics = new Map<string, TypedName>();
  for (const item of items) (item.kind === "FIELD" ? fields : metrics).set(item.name, { dataType: item.dataType as DataType });
  return { fields, metrics, selfName };
}

export type CheckResult =
  | {
      readonly ok: true;
      readonly dataType: DataType;
      readonly referencedFields: string[];
      readonly referencedMetrics: string[];
      readonly ast: Expression;
    }
  | { readonly ok: false; readonly error: ExpressionError };

/**
 * Parses and validates an expression for a custom metric ("aggregate") or a derived
 * field ("row") and infers its data type. Never throws for any text.
 *
 * Name resolution: outside aggregates (metric level) a name means a custom metric;
 * inside an aggregate, a WHERE filter or a row-level expression it means a field.
 *
 * A whole expression of type BOOLEAN (a bare condition such as `a > 1`) is rejected at
 * both levels: the API has no BOOLEAN data type, and inventing a text encoding for it
 * would be a hidden convention. Users write `CASE WHEN a > 1 THEN 'yes' ELSE 'no' END`.
 */
export function checkExpression(text: string, context: ExpressionContext, level: ExpressionLevel): CheckResult {
  const parsed = parseExpression(text);
  return parsed.ok ? checkExpressionTree(parsed.ast, context, level) : parsed;
}

/** The checking half of `checkExpression`, for a tree that is already parsed. */
export function checkExpressionTree(ast: Expression, context: ExpressionContext, level: ExpressionLevel): CheckResult {
  const checker = new TypeChecker(context, level);
  try {
    const type = checker.typeOf(ast, level === "aggregate" ? AGGREGATED : ROW);
    if (type === "BOOLEAN") {
      const subject = level === "aggregate" ? "a custom metric" : "a derived field";
      throw new ExpressionValidationError(
        `The expression is a condition (BOOLEAN), but ${subject} must produce a value; wrap it in CASE WHEN ... THEN ... ELSE ... END`,
        startPosition(ast),
      );
    }
    return { ok: true, dataType: type, referencedFields: checker.referencedFields(), referencedMetrics: checker.referencedMetrics(), ast };
  } catch (error) {
    if (error instanceof ExpressionValidationError) return { ok: false, error: error.toExpressionError() };
    throw error;
  }
}

/** Where a node sits, which decides what its names and functions may be. */
type Scope =
  | { readonly kind: "aggregated" } // a custom metric's expression outside any aggregate
  | { readonly kind: "row" } // a derived field's expression
  | { readonly kind: "insideAggregate"; readonly aggregate: string }
  | { readonly kind: "filter"; readonly aggregate: string };

const AGGREGATED: Scope = { kind: "aggregated" };
const ROW: Scope = { kind: "row" };

/** ISO 8601 date, optionally with time and zone; compared against TIME values. */
const TIMESTAMP_LITERAL =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])([T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?)?$/;

function fail(message: string, position: SourcePosition): never {
  throw new ExpressionValidationError(message, position);
}

interface Operand {
  readonly node: Expression;
  readonly type: ExpressionType;
}

class TypeChecker {
  // Sets keep insertion order: first appearance, without duplicates.
  private readonly fieldsUsed = new Set<string>();
  private readonly metricsUsed = new Set<string>();

  constructor(
    private readonly context: ExpressionContext,
    private readonly level: ExpressionLevel,
  ) {}

  referencedFields(): string[] {
    return [...this.fieldsUsed];
  }

  referencedMetrics(): string[] {
    return [...this.metricsUsed];
  }

  typeOf(node: Expression, scope: Scope): ExpressionType {
    switch (node.kind) {
      case "number":
        return /^[0-9]+$/.test(node.text) ? "INTEGER" : "NUMBER";
      case "string":
        return "TEXT";
      case "boolean":
        return "BOOLEAN";
      case "null":
        return "NULL";
      case "name":
        return this.resolveName(node, scope);
      case "unary":
        return this.unaryType(node, scope);
      case "binary":
        return this.binaryType(node, scope);
      case "in": {
        const operand = this.operand(node.operand, scope);
        for (const value of node.values) {
          this.requireComparable(operand, this.operand(value, scope), false, startPosition(value), "in the IN list");
        }
        return "BOOLEAN";
      }
      case "between": {
        const operand = this.operand(node.operand, scope);
        this.requireComparable(operand, this.operand(node.low, scope), true, startPosition(node.low), "in BETWEEN");
        this.requireComparable(operand, this.operand(node.high, scope), true, startPosition(node.high), "in BETWEEN");
        return "BOOLEAN";
      }
      case "isNull":
        this.typeOf(node.operand, scope);
        return "BOOLEAN";
      case "case":
        return this.caseType(node, scope);
      case "call":
        return this.callType(node, scope);
    }
  }

  private operand(node: Expression, scope: Scope): Operand {
    return { node, type: this.typeOf(node, scope) };
  }

  private resolveName(node: NameReference, scope: Scope): ExpressionType {
    const { name, position } = node;
    if (this.context.selfName !== undefined && name === this.context.selfName) {
      const subject = this.level === "aggregate" ? "Custom metric" : "Derived field";
      fail(`${subject} '${name}' cannot reference itself`, position);
    }
    const field = this.context.fields.get(name);
    const metric = this.context.metrics.get(name);
    if (scope.kind === "aggregated") {
      if (metric !== undefined) return this.use(this.metricsUsed, "Custom metric", name, metric.dataType, position);
      if (field !== undefined) {
        fail(`Field '${name}' must be aggregated (use it inside an aggregate function such as SUM or COUNT)`, position);
      }
    } else {
      if (field !== undefined) return this.use(this.fieldsUsed, "Field", name, field.dataType, position);
      if (metric !== undefined) fail(metricMisuseMessage(name, scope), position);
    }
    return fail(`Field '${name}' not found`, position);
  }

  private use(used: Set<string>, subject: string, name: string, dataType: DataType, position: SourcePosition): ExpressionType {
    if (dataType === "HIERARCHY") fail(`${subject} '${name}' is a hierarchy and cannot be used in expressions`, position);
    used.add(name);
    return dataType;
  }

  private unaryType(node: UnaryExpression, scope: Scope): ExpressionType {
    const type = this.typeOf(node.operand, scope);
    if (node.operator === "NOT") {
      if (!isCondition(type)) fail(`NOT needs a condition (BOOLEAN), got ${type}`, node.position);
      return "BOOLEAN";
    }
    if (!isNumeric(type)) fail(`Unary '-' needs a number, got ${type}`, node.position);
    return type;
  }

  private binaryType(node: BinaryExpression, scope: Scope): ExpressionType {
    const left = this.operand(node.left, scope);
    const right = this.operand(node.right, scope);
    const { operator, position } = node;
    switch (operator) {
      case "AND":
      case "OR":
        if (!isCondition(left.type) || !isCondition(right.type)) {
          fail(`Operator '${operator}' needs conditions (BOOLEAN) on both sides, got ${left.type} and ${right.type}`, position);
        }
        return "BOOLEAN";
      case "+":
      case "-":
      case "*":
      case "/":
        if (!isNumeric(left.type) || !isNumeric(right.type)) {
          fail(`Operator '${operator}' needs numbers on both sides, got ${left.type} and ${right.type}${arithmeticHint(operator, left.type, right.type)}`, position);
        }
        return operator === "/" ? "NUMBER" : commonType(left.type, right.type) ?? "NUMBER";
      default:
        this.requireComparable(left, right, operator !== "=" && operator !== "!=", position, `with '${operator}'`);
        return "BOOLEAN";
    }
  }

  /**
   * Values compare when their types have a common type. A TIME also compares with a
   * string literal holding an ISO 8601 time, so `order_date >= '2024-01-01'` works.
   */
  private requireComparable(first: Operand, second: Operand, ordered: boolean, position: SourcePosition, where: string): void {
    const shared = commonType(first.type, second.type);
    if (shared === null) {
      if (this.isTimeAgainstTimestampLiteral(first, second) || this.isTimeAgainstTimestampLiteral(second, first)) return;
      fail(`Cannot compare ${first.type} with ${second.type} ${where}`, position);
    }
    if (ordered && shared === "BOOLEAN") fail(`Conditions (BOOLEAN) cannot be ordered ${where}`, position);
  }

  private isTimeAgainstTimestampLiteral(time: Operand, literal: Operand): boolean {
    if (time.type !== "TIME" || literal.node.kind !== "string") return false;
    if (!TIMESTAMP_LITERAL.test(literal.node.value)) {
      fail(
        `'${literal.node.value}' is not a valid time; write times as ISO 8601 text such as '2024-01-31' or '2024-01-31T12:00:00Z'`,
        literal.node.position,
      );
    }
    return true;
  }

  private caseType(node: CaseExpression, scope: Scope): ExpressionType {
    const operand = node.operand === null ? null : this.operand(node.operand, scope);
    let result: ExpressionType = "NULL";
    const addResult = (value: Expression): void => {
      const type = this.typeOf(value, scope);
      const shared = commonType(result, type);
      if (shared === null) fail(`CASE results must all have the same type, got ${result} and ${type}`, startPosition(value));
      result = shared;
    };
    for (const branch of node.branches) {
      if (operand === null) {
        const type = this.typeOf(branch.when, scope);
        if (!isCondition(type)) fail(`WHEN needs a condition (BOOLEAN), got ${type}`, startPosition(branch.when));
      } else {
        this.requireComparable(operand, this.operand(branch.when, scope), false, startPosition(branch.when), "in CASE ... WHEN");
      }
      addResult(branch.then);
    }
    if (node.otherwise !== null) addResult(node.otherwise);
    return result;
  }

  private callType(node: FunctionCall, scope: Scope): ExpressionType {
    const definition = lookupFunction(node.name);
    if (definition === undefined) return fail(`Function '${node.name}' not supported`, node.position);
    const argumentScope = this.argumentScope(definition, scope, node.position);
    this.checkArity(definition, node);
    const argumentTypes = node.args.map((argument, index) => this.argumentType(definition, argument, index, argumentScope));
    if (node.filter !== null) this.checkFilter(definition, node, node.filter);
    const result = definition.returns.infer(argumentTypes);
    if (result === null) reportIncompatibleArguments(definition, node, argumentTypes);
    return result;
  }

  private argumentScope(definition: FunctionDefinition, scope: Scope, position: SourcePosition): Scope {
    const { name } = definition;
    if (definition.level === "aggregate") {
      switch (scope.kind) {
        case "aggregated":
          return { kind: "insideAggregate", aggregate: name };
        case "row":
          return fail(`Aggregate function '${name}' is not allowed in a row-level expression`, position);
        case "insideAggregate":
          return fail(`Aggregate function '${name}' cannot be nested inside aggregate function '${scope.aggregate}'`, position);
        case "filter":
          return fail(`Aggregate function '${name}' cannot be used in a WHERE filter, which is evaluated per row`, position);
      }
    }
    if (definition.level === "row" && scope.kind === "aggregated") {
      fail(
        `Function '${name}' works on individual rows and cannot be applied to aggregated values; use it inside an aggregate, as in MAX(${name}(...))`,
        position,
      );
    }
    return scope;
  }

  private checkArity(definition: FunctionDefinition, node: FunctionCall): void {
    const [first] = node.args;
    if (first?.kind === "star" && definition.acceptsStar !== true) {
      fail(`Function '${definition.name}' does not accept '*'; only COUNT(*) does`, first.position);
    }
    const { minimum, maximum } = arityOf(definition);
    const count = node.args.length;
    if (count >= minimum && count <= maximum) return;
    fail(`Function '${definition.name}' expects ${describeArity(minimum, maximum)}, got ${count}`, node.position);
  }

  private argumentType(definition: FunctionDefinition, argument: CallArgument, index: number, scope: Scope): ExpressionType | null {
    // checkArity has run, so every index has a parameter.
    const parameter = argumentAt(definition, index);
    if (parameter === undefined) return null;
    if (isUnitArgument(parameter)) {
      if (argument.kind !== "timeUnit") fail(`Argument '${parameter.name}' of ${definition.name} must be a time unit`, argument.position);
      return null;
    }
    if (argument.kind === "star") return null;
    if (argument.kind === "timeUnit") {
      return fail(`A time unit is not allowed as argument '${parameter.name}' of ${definition.name}`, argument.position);
    }
    const type = this.typeOf(argument, scope);
    if (type !== "NULL" && !(parameter.types as readonly string[]).includes(type)) {
      fail(`Argument '${parameter.name}' of ${definition.name} must be ${describeTypes(parameter.types)}, got ${type}`, startPosition(argument));
    }
    return type;
  }

  private checkFilter(definition: FunctionDefinition, node: FunctionCall, filter: Expression): void {
    if (definition.level !== "aggregate") {
      fail(`A WHERE filter can only follow an aggregate function, and '${definition.name}' is not one`, node.position);
    }
    const type = this.typeOf(filter, { kind: "filter", aggregate: definition.name });
    if (!isCondition(type)) fail(`The WHERE filter of ${definition.name} must be a condition (BOOLEAN), got ${type}`, startPosition(filter));
  }
}

function metricMisuseMessage(name: string, scope: Scope): string {
  switch (scope.kind) {
    case "insideAggregate":
      return `Custom metric '${name}' cannot be used inside aggregate function '${scope.aggregate}', because it is already aggregated`;
    case "filter":
      return `Custom metric '${name}' cannot be used in a WHERE filter, which is evaluated per row`;
    default:
      return `Custom metric '${name}' cannot be used in a row-level expression`;
  }
}

function arithmeticHint(operator: string, left: ExpressionType, right: ExpressionType): string {
  if (left === "TIME" || right === "TIME") return "; use TIME_ADD or TIME_DIFF for time arithmetic";
  const isText = (type: ExpressionType): boolean => type === "TEXT" || type === "ATTRIBUTE";
  if (operator === "+" && (isText(left) || isText(right))) return "; use CONCAT to join text";
  return "";
}

function describeArity(minimum: number, maximum: number): string {
  const plural = (count: number): string => (count === 1 ? "argument" : "arguments");
  if (maximum === Number.POSITIVE_INFINITY) return `at least ${minimum} ${plural(minimum)}`;
  if (minimum === maximum) return minimum === 0 ? "no arguments" : `${minimum} ${plural(minimum)}`;
  return `${minimum} to ${maximum} arguments`;
}

/** Names the first two argument types that have no common type. */
function reportIncompatibleArguments(definition: FunctionDefinition, node: FunctionCall, argumentTypes: readonly (ExpressionType | null)[]): never {
  let shared: ExpressionType = "NULL";
  for (const [index, type] of argumentTypes.entries()) {
    if (type === null) continue;
    const next = commonType(shared, type);
    if (next === null) {
      fail(`Arguments of ${definition.name} must have compatible types, got ${shared} and ${type}`, startPosition(node.args[index]));
    }
    shared = next;
  }
  return fail(`Arguments of ${definition.name} have incompatible types`, node.position);
}
