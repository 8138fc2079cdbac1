import {
  lookupFunction,
  type BinaryOperator,
  type Expression,
  type ExpressionLevel,
  type FunctionCall,
  type FunctionDefinition,
  type TimeUnit,
} from "../expression";
import { refuseFunction, type SqlArgument, type SqlDialect, type SqlFunctionCall } from "./dialect";
import { SqlGenerationError } from "./errors";
import type { SqlNames } from "./source";

/**
 * The expression language in SQL. Names are resolved against the source as the checker
 * does: at aggregate level a bare name is a custom metric; inside an aggregate, in a WHERE
 * filter and at row level it is a field. Both are written inline: a NATIVE field as its
 * quoted column, a DERIVED field or a custom metric as its own expression, recursively.
 *
 * Types are the checker's business (run checkExpression first); this printer refuses
 * only what it cannot write: unknown names, misplaced aggregates, cycles, and functions
 * the dialect does not support.
 */
export function expressionToSql(expression: Expression, level: ExpressionLevel, names: SqlNames, dialect: SqlDialect): string {
  return new SqlPrinter(names, dialect).render(expression, level).sql;
}

/** Like expressionToSql, but parenthesised unless it is a single term: safe beside any operator. */
export function expressionToSqlOperand(expression: Expression, level: ExpressionLevel, names: SqlNames, dialect: SqlDialect): string {
  return asOperand(new SqlPrinter(names, dialect).render(expression, level));
}

/**
 * Inline expansion can multiply text (a derived field used twice in another, and so on),
 * so generation stops at this length instead of building an enormous query.
 */
export const MAX_EXPRESSION_SQL_LENGTH = 1_000_000;

/**
 * How tightly SQL binds, loosest first. It is the expression language's own ladder, and
 * ISO SQL and PostgreSQL agree with it as long as the operands of a comparison (=, IN,
 * BETWEEN, IS NULL) are arithmetic or tighter, which the printer ensures.
 */
const Binding = {
  or: 1,
  and: 2,
  not: 3,
  comparison: 4,
  additive: 5,
  multiplicative: 6,
  unaryMinus: 7,
  term: 8,
} as const;

type BindingLevel = (typeof Binding)[keyof typeof Binding];

interface Rendered {
  readonly sql: string;
  readonly binding: BindingLevel;
}

function term(sql: string): Rendered {
  return { sql, binding: Binding.term };
}

function asOperand(rendered: Rendered): string {
  return rendered.binding < Binding.term ? `(${rendered.sql})` : rendered.sql;
}

function asArgument(rendered: Rendered): SqlArgument {
  return { sql: rendered.sql, operand: asOperand(rendered) };
}

/** Division is the dialect's; every other operator is written the same everywhere. */
const BINARY_OPERATORS: Readonly<Record<Exclude<BinaryOperator, "/">, { readonly sql: string; readonly binding: BindingLevel }>> = {
  OR: { sql: "OR", binding: Binding.or },
  AND: { sql: "AND", binding: Binding.and },
  "=": { sql: "=", binding: Binding.comparison },
  "!=": { sql: "<>", binding: Binding.comparison },
  "<": { sql: "<", binding: Binding.comparison },
  "<=": { sql: "<=", binding: Binding.comparison },
  ">": { sql: ">", binding: Binding.comparison },
  ">=": { sql: ">=", binding: Binding.comparison },
  "+": { sql: "+", binding: Binding.additive },
  "-": { sql: "-", binding: Binding.additive },
  "*": { sql: "*", binding: Binding.multiplicative },
};

function invalid(message: string): SqlGenerationError {
  return new SqlGenerationError("INVALID_EXPRESSION", message);
}

class SqlPrinter {
  /** Each field and metric is expanded once per query, however often it is used. */
  private readonly expandedFields = new Map<string, Rendered>();
  private readonly expandedMetrics = new Map<string, Rendered>();
  /** The fields and metrics being expanded, outermost first, to report cycles. */
  private readonly expanding: string[] = [];

  constructor(
    private readonly names: SqlNames,
    private readonly dialect: SqlDialect,
  ) {}

  render(node: Expression, level: ExpressionLevel): Rendered {
    const rendered = this.renderNode(node, level);
    if (rendered.sql.length > MAX_EXPRESSION_SQL_LENGTH) {
      throw new SqlGenerationError("TOO_LARGE", `The expression expands to more than ${MAX_EXPRESSION_SQL_LENGTH} characters of SQL`);
    }
    return rendered;
  }

  /** `node` as the operand of an operator that binds at `minimum`. */
  private operand(node: Expression, level: ExpressionLevel, minimum: BindingLevel): string {
    const rendered = this.render(node, level);
    return rendered.binding < minimum ? `(${rendered.sql})` : rendered.sql;
  }

  private renderNode(node: Expression, level: ExpressionLevel): Rendered {
    const { dialect } = this;
    switch (node.kind) {
      case "number":
        return term(dialect.numberLiteral(node.text));
      case "string":
        return term(dialect.stringLiteral(node.value));
      case "boolean":
        return term(dialect.booleanLiteral(node.value));
      case "null":
        return term(dialect.nullLiteral);
      case "name":
        return level === "aggregate" ? this.metric(node.name) : this.field(node.name);
      case "unary": {
        if (node.operator === "NOT") return { sql: `NOT ${this.operand(node.operand, level, Binding.not)}`, binding: Binding.not };
        const operand = this.operand(node.operand, level, Binding.unaryMinus);
        // `--` would start an SQL comment.
        return { sql: operand.startsWith("-") ? `-(${operand})` : `-${operand}`, binding: Binding.unaryMinus };
      }
      case "binary": {
        if (node.operator === "/") {
          const dividend = asArgument(this.render(node.left, level));
          const divisor = asArgument(this.render(node.right, level));
          return { sql: dialect.divide(dividend, divisor), binding: Binding.multiplicative };
        }
        const { sql, binding } = BINARY_OPERATORS[node.operator];
        // Comparisons do not chain in SQL either, so their operands are arithmetic or tighter.
        const isComparison = binding === Binding.comparison;
        const left = this.operand(node.left, level, isComparison ? Binding.additive : binding);
        const right = this.operand(node.right, level, isComparison ? Binding.additive : ((binding + 1) as BindingLevel));
        return { sql: `${left} ${sql} ${right}`, binding };
      }
      case "in": {
        const values = node.values.map((value) => this.render(value, level).sql).join(", ");
        const operand = this.operand(node.operand, level, Binding.additive);
        return { sql: `${operand} ${node.negated ? "NOT IN" : "IN"} (${values})`, binding: Binding.comparison };
      }
      case "between": {
        const operand = this.operand(node.operand, level, Binding.additive);
        const low = this.operand(node.low, level, Binding.additive);
        const high = this.operand(node.high, level, Binding.additive);
        return { sql: `${operand} ${node.negated ? "NOT BETWEEN" : "BETWEEN"} ${low} AND ${high}`, binding: Binding.comparison };
      }
      case "isNull": {
        const operand = this.operand(node.operand, level, Binding.additive);
        return { sql: `${operand} ${node.negated ? "IS NOT NULL" : "IS NULL"}`, binding: Binding.comparison };
      }
      case "case": {
        const parts = ["CASE"];
        if (node.operand !== null) parts.push(this.render(node.operand, level).sql);
        for (const branch of node.branches) {
          parts.push("WHEN", this.render(branch.when, level).sql, "THEN", this.render(branch.then, level).sql);
        }
        if (node.otherwise !== null) parts.push("ELSE", this.render(node.otherwise, level).sql);
        parts.push("END");
        return term(parts.join(" "));
      }
      case "call":
        return this.call(node, level);
    }
  }

  private field(name: string): Rendered {
    const known = this.expandedFields.get(name);
    if (known !== undefined) return known;
    const field = this.names.fields.get(name);
    if (field === undefined) throw new SqlGenerationError("UNKNOWN_NAME", `Field '${name}' not found`);
    const rendered =
      field.kind === "NATIVE"
        ? this.expand(`field '${name}'`, () => term(this.dialect.quoteIdentifier(field.column)))
        : this.expand(`derived field '${name}'`, () => this.render(field.expression, "row"));
    this.expandedFields.set(name, rendered);
    return rendered;
  }

  private metric(name: string): Rendered {
    const known = this.expandedMetrics.get(name);
    if (known !== undefined) return known;
    const expression = this.names.metrics.get(name);
    if (expression === undefined) {
      if (this.names.fields.has(name)) {
        throw invalid(`Field '${name}' must be aggregated (use it inside an aggregate function such as SUM or COUNT)`);
      }
      throw new SqlGenerationError("UNKNOWN_NAME", `Custom metric '${name}' not found`);
    }
    const rendered = this.expand(`custom metric '${name}'`, () => this.render(expression, "aggregate"));
    this.expandedMetrics.set(name, rendered);
    return rendered;
  }

  /** Expands one field or metric, refusing cycles and naming it in any error from inside. */
  private expand(place: string, work: () => Rendered): Rendered {
    if (this.expanding.includes(place)) {
      const cycle = [...this.expanding.slice(this.expanding.indexOf(place)), place].join(" -> ");
      throw new SqlGenerationError("CIRCULAR_REFERENCE", `Circular reference: ${cycle}`);
    }
    this.expanding.push(place);
    try {
      return work();
    } catch (error) {
      if (error instanceof SqlGenerationError && error.reason !== "CIRCULAR_REFERENCE") throw error.within(place);
      throw error;
    } finally {
      this.expanding.pop();
    }
  }

  private call(node: FunctionCall, level: ExpressionLevel): Rendered {
    const definition = lookupFunction(node.name);
    if (definition === undefined) throw invalid(`Function '${node.name}' not supported`);
    const { name } = definition;
    const isAggregate = definition.level === "aggregate";
    if (isAggregate && level !== "aggregate") {
      throw invalid(`Aggregate function '${name}' cannot be used inside another aggregate, in a WHERE filter or in a row-level expression`);
    }
    if (node.filter !== null && !isAggregate) {
      throw invalid(`A WHERE filter can only follow an aggregate function, and '${name}' is not one`);
    }
    checkArguments(definition, node);

    // The arguments of an aggregate are evaluated per row.
    const argumentLevel: ExpressionLevel = isAggregate ? "row" : level;
    let unit: TimeUnit | null = null;
    let star = false;
    const args: SqlArgument[] = [];
    for (const argument of node.args) {
      if (argument.kind === "timeUnit") unit = argument.unit;
      else if (argument.kind === "star") star = true;
      else args.push(asArgument(this.render(argument, argumentLevel)));
    }

    const call: SqlFunctionCall = { name, args, unit, star, dialect: this.dialect };
    const renderer = this.dialect.functions.get(name) ?? refuseFunction(call);
    if (node.filter === null) return term(renderer(call));

    const condition = this.render(node.filter, "row").sql;
    if (this.dialect.aggregateFilter === "FILTER_CLAUSE") return term(`${renderer(call)} FILTER (WHERE ${condition})`);
    // Rows that fail the condition become NULL, which every aggregate skips; COUNT(*) counts the 1s.
    const matching = (sql: string): SqlArgument => asArgument(term(`CASE WHEN ${condition} THEN ${sql} END`));
    const filteredArgs = star ? [matching("1")] : args.map((argument) => matching(argument.sql));
    return term(renderer({ ...call, args: filteredArgs, star: false }));
  }
}

/**
 * The shape checks the checker also makes, repeated here because a renderer indexes its
 * arguments and a tree need not have been checked: argument count, `*` only where
 * accepted, a time unit exactly where the function takes one.
 */
function checkArguments(definition: FunctionDefinition, node: FunctionCall): void {
  const parameters = definition.arguments;
  const minimum = parameters.filter((parameter) => parameter.optional !== true).length;
  const maximum = parameters.some((parameter) => parameter.variadic === true) ? Number.POSITIVE_INFINITY : parameters.length;
  const count = node.args.length;
  if (count < minimum || count > maximum) {
    throw invalid(`Function ${definition.name} expects ${minimum === maximum ? minimum : `${minimum} to ${maximum}`} arguments, got ${count}`);
  }
  node.args.forEach((argument, index) => {
    const parameter = parameters[Math.min(index, parameters.length - 1)];
    const takesUnit = parameter?.types.includes("TIME_UNIT") === true;
    if (takesUnit !== (argument.kind === "timeUnit")) {
      throw invalid(`Argument ${index + 1} of ${definition.name} ${takesUnit ? "must" : "cannot"} be a time unit`);
    }
    if (argument.kind === "star" && (definition.acceptsStar !== true || count !== 1)) {
      throw invalid(`Function ${definition.name} does not accept '*'; only COUNT(*) does`);
    }
  });
}
