import type { BinaryOperator, CallArgument, ComparisonOperator, Expression, FunctionCall, SourcePosition, TimeUnitArgument } from "./ast";
import { ExpressionSyntaxError, type ExpressionError } from "./errors";
import { argumentAt, isUnitArgument, lookupFunction, type FunctionDefinition } from "./functions";
import { Lexer } from "./lexer";
import { MAX_NESTING_DEPTH, MAX_TREE_HEIGHT } from "./limits";
import {
  asciiUpperCase,
  describeToken,
  FROM_KEYWORD,
  TIME_UNITS,
  timeUnitOf,
  type Punctuation,
  type ReservedKeyword,
  type Token,
} from "./tokens";

export type ParseResult = { readonly ok: true; readonly ast: Expression } | { readonly ok: false; readonly error: ExpressionError };

/**
 * Parses an expression. Never throws for any input: syntax problems come back as
 * `{ ok: false, error }` with `error.type === "SYNTAX"`.
 */
export function parseExpression(text: string): ParseResult {
  try {
    return { ok: true, ast: new Parser(text).parseWhole() };
  } catch (error) {
    if (error instanceof ExpressionSyntaxError) return { ok: false, error: error.toExpressionError() };
    throw error;
  }
}

const COMPARISON_SYMBOLS: ReadonlyMap<Punctuation, ComparisonOperator> = new Map<Punctuation, ComparisonOperator>([
  ["=", "="],
  ["!=", "!="],
  ["<>", "!="],
  ["<", "<"],
  ["<=", "<="],
  [">", ">"],
  [">=", ">="],
]);

const COMPARISON_KEYWORDS: ReadonlySet<ReservedKeyword> = new Set<ReservedKeyword>(["IN", "NOT", "BETWEEN", "IS"]);

/**
 * Recursive descent, one function per precedence level (loosest first: OR, AND, NOT,
 * comparison, + -, * /, unary minus, primary). Binary chains are loops, so only
 * genuine nesting recurses, and that is capped by MAX_NESTING_DEPTH.
 *
 * WHERE binds to the aggregate call written just before it, and its condition is
 * parsed at the loosest level: `SUM(x) WHERE a = 1 AND b = 2` filters on both tests,
 * and the condition runs to the next `,`, `)`, THEN/WHEN/ELSE/END or the end of the
 * text. To use a filtered aggregate inside a larger formula, parenthesise it:
 * `(SUM(x) WHERE a = 1) / SUM(y)`.
 */
class Parser {
  private readonly lexer: Lexer;
  private current: Token;
  private depth = 0;
  /** Height of every composite node built so far; leaves count as 1. */
  private readonly heights = new WeakMap<CallArgument, number>();

  constructor(text: string) {
    this.lexer = new Lexer(text);
    this.current = this.lexer.next();
  }

  parseWhole(): Expression {
    if (this.current.kind === "end") throw new ExpressionSyntaxError("Expression is empty", this.current.position);
    const expression = this.parseExpression();
    if (!this.isAtEnd()) {
      if (this.isSymbol(")")) throw new ExpressionSyntaxError("Unmatched ')'", this.current.position);
      throw this.unexpected("an operator or the end of the expression");
    }
    return expression;
  }

  private parseExpression(): Expression {
    return this.parseOr();
  }

  private parseOr(): Expression {
    let left = this.parseAnd();
    while (this.isKeyword("OR")) {
      const operator = this.advance();
      left = this.binary("OR", left, this.parseAnd(), operator.position);
    }
    return left;
  }

  private parseAnd(): Expression {
    let left = this.parseNot();
    while (this.isKeyword("AND")) {
      const operator = this.advance();
      left = this.binary("AND", left, this.parseNot(), operator.position);
    }
    return left;
  }

  private parseNot(): Expression {
    if (!this.isKeyword("NOT")) return this.parseComparison();
    const operator = this.advance();
    this.enter(operator.position);
    const operand = this.parseNot();
    this.leave();
    return this.track({ kind: "unary", operator: "NOT", operand, position: operator.position }, [operand]);
  }

  /** Comparisons do not chain: `a < b < c` is an error rather than a surprise. */
  private parseComparison(): Expression {
    const left = this.parseAdditive();
    const comparison = this.parseComparisonTail(left);
    if (comparison !== left && this.startsComparison()) {
      throw new ExpressionSyntaxError("Comparisons cannot be chained; combine them with AND or OR", this.current.position);
    }
    return comparison;
  }

  private startsComparison(): boolean {
    const token = this.current;
    if (token.kind === "symbol") return COMPARISON_SYMBOLS.has(token.symbol);
    return token.kind === "keyword" && COMPARISON_KEYWORDS.has(token.keyword);
  }

  private parseComparisonTail(left: Expression): Expression {
    const token = this.current;
    if (token.kind === "symbol") {
      const operator = COMPARISON_SYMBOLS.get(token.symbol);
      if (operator === undefined) return left;
      this.advance();
      return this.binary(operator, left, this.parseAdditive(), token.position);
    }
    if (token.kind !== "keyword") return left;
    switch (token.keyword) {
      case "IN":
        this.advance();
        return this.parseInList(left, false, token.position);
      case "BETWEEN":
        this.advance();
        return this.parseBetween(left, false, token.position);
      case "NOT": {
        this.advance();
        if (this.isKeyword("IN")) {
          this.advance();
          return this.parseInList(left, true, token.position);
        }
        if (this.isKeyword("BETWEEN")) {
          this.advance();
          return this.parseBetween(left, true, token.position);
        }
        throw this.unexpected("IN or BETWEEN after NOT");
      }
      case "IS": {
        this.advance();
        const negated = this.isKeyword("NOT");
        if (negated) this.advance();
        this.expectKeyword("NULL", negated ? "NULL after IS NOT" : "NULL or NOT NULL after IS");
        return this.track({ kind: "isNull", negated, operand: left, position: token.position }, [left]);
      }
      default:
        return left;
    }
  }

  private parseInList(operand: Expression, negated: boolean, position: SourcePosition): Expression {
    const open = this.current;
    this.expectSymbol("(", "'(' to start the IN list");
    this.enter(open.position);
    if (this.isSymbol(")")) throw new ExpressionSyntaxError("An IN list needs at least one value", this.current.position);
    const values: Expression[] = [this.parseExpression()];
    while (this.isSymbol(",")) {
      this.advance();
      values.push(this.parseExpression());
    }
    this.expectSymbol(")", "',' or ')' in the IN list");
    this.leave();
    return this.track({ kind: "in", negated, operand, values, position }, [operand, ...values]);
  }

  private parseBetween(operand: Expression, negated: boolean, position: SourcePosition): Expression {
    const low = this.parseAdditive();
    this.expectKeyword("AND", "AND between the bounds of BETWEEN");
    const high = this.parseAdditive();
    return this.track({ kind: "between", negated, operand, low, high, position }, [operand, low, high]);
  }

  private parseAdditive(): Expression {
    let left = this.parseMultiplicative();
    for (let operator = this.currentSymbol("+", "-"); operator !== undefined; operator = this.currentSymbol("+", "-")) {
      const { position } = this.advance();
      left = this.binary(operator, left, this.parseMultiplicative(), position);
    }
    return left;
  }

  private parseMultiplicative(): Expression {
    let left = this.parseUnary();
    for (let operator = this.currentSymbol("*", "/"); operator !== undefined; operator = this.currentSymbol("*", "/")) {
      const { position } = this.advance();
      left = this.binary(operator, left, this.parseUnary(), position);
    }
    return left;
  }

  private parseUnary(): Expression {
    if (!this.isSymbol("-")) return this.parsePrimary();
    const operator = this.advance();
    this.enter(operator.position);
    const operand = this.parseUnary();
    this.leave();
    return this.track({ kind: "unary", operator: "-", operand, position: operator.position }, [operand]);
  }

  private parsePrimary(): Expression {
    const token = this.current;
    const { position } = token;
    switch (token.kind) {
      case "number":
        this.advance();
        return { kind: "number", text: token.text, position };
      case "string":
        this.advance();
        return { kind: "string", value: token.value, position };
      case "name":
        this.advance();
        return this.isSymbol("(") ? this.parseCall(token.name, position) : { kind: "name", name: token.name, position };
      case "quotedName":
        this.advance();
        if (this.isSymbol("(")) {
          throw new ExpressionSyntaxError("A quoted name cannot be called as a function", this.current.position);
        }
        return { kind: "name", name: token.name, position };
      case "keyword":
        return this.parseKeywordPrimary(token.keyword, position);
      case "symbol":
        if (token.symbol === "(") return this.parseParenthesized();
        throw this.unexpected("an expression");
      case "end":
        throw this.unexpected("an expression");
    }
  }

  private parseKeywordPrimary(keyword: ReservedKeyword, position: SourcePosition): Expression {
    switch (keyword) {
      case "TRUE":
      case "FALSE":
        this.advance();
        return { kind: "boolean", value: keyword === "TRUE", position };
      case "NULL":
        this.advance();
        return { kind: "null", position };
      case "CASE":
        return this.parseCase();
      default:
        throw this.unexpected("an expression");
    }
  }

  private parseParenthesized(): Expression {
    const open = this.advance();
    this.enter(open.position);
    const inner = this.parseExpression();
    this.expectSymbol(")", "')'");
    this.leave();
    return inner;
  }

  private parseCase(): Expression {
    const caseToken = this.advance();
    this.enter(caseToken.position);
    const operand = this.isKeyword("WHEN") ? null : this.parseCaseOperand();
    const branches: { when: Expression; then: Expression }[] = [];
    while (this.isKeyword("WHEN")) {
      this.advance();
      const when = this.parseExpression();
      this.expectKeyword("THEN", "THEN after the WHEN condition");
      branches.push({ when, then: this.parseExpression() });
    }
    if (branches.length === 0) throw this.unexpected("WHEN after CASE");
    let otherwise: Expression | null = null;
    if (this.isKeyword("ELSE")) {
      this.advance();
      otherwise = this.parseExpression();
      this.expectKeyword("END", "END to close CASE");
    } else {
      this.expectKeyword("END", "WHEN, ELSE or END in CASE");
    }
    this.leave();
    const children = [...(operand === null ? [] : [operand]), ...branches.flatMap((branch) => [branch.when, branch.then])];
    if (otherwise !== null) children.push(otherwise);
    return this.track({ kind: "case", operand, branches, otherwise, position: caseToken.position }, children);
  }

  private parseCaseOperand(): Expression {
    if (this.isKeyword("END") || this.isKeyword("ELSE")) throw this.unexpected("WHEN after CASE");
    return this.parseExpression();
  }

  private parseCall(writtenName: string, position: SourcePosition): FunctionCall {
    const name = asciiUpperCase(writtenName);
    const definition = lookupFunction(name);
    this.advance(); // the opening parenthesis
    this.enter(position);
    const args = this.parseArguments(name, definition);
    this.leave();
    let filter: Expression | null = null;
    if (this.isKeyword("WHERE")) {
      const where = this.advance();
      this.enter(where.position);
      filter = this.parseExpression();
      this.leave();
    }
    const children = filter === null ? args : [...args, filter];
    return this.track({ kind: "call", name, args, filter, position }, children);
  }

  /** Unit positions come from the registry, so unknown functions take plain values. */
  private parseArguments(name: string, definition: FunctionDefinition | undefined): CallArgument[] {
    if (this.isSymbol(")")) {
      this.advance();
      return [];
    }
    if (this.isSymbol("*")) {
      const star = this.advance();
      this.expectSymbol(")", "')': '*' must be the only argument, as in COUNT(*)");
      return [{ kind: "star", position: star.position }];
    }
    const args: CallArgument[] = [];
    for (;;) {
      const parameter = definition === undefined ? undefined : argumentAt(definition, args.length);
      args.push(isUnitArgument(parameter) ? this.parseTimeUnit(name) : this.parseExpression());
      if (this.isSymbol(",") || (definition?.unitFromSyntax === true && args.length === 1 && this.isFromKeyword())) {
        this.advance();
        continue;
      }
      break;
    }
    this.expectSymbol(")", `',' or ')' in the arguments of ${name}`);
    return args;
  }

  private parseTimeUnit(functionName: string): TimeUnitArgument {
    const token = this.current;
    const unit = token.kind === "name" ? timeUnitOf(token.name) : undefined;
    if (unit === undefined) {
      const hint = token.kind === "string" && timeUnitOf(token.value) !== undefined ? `; write the unit without quotes, as in ${asciiUpperCase(token.value)}` : "";
      throw new ExpressionSyntaxError(
        `Expected a time unit (${TIME_UNITS.join(", ")}) as the first argument of ${functionName} but found ${describeToken(token)}${hint}`,
        token.position,
      );
    }
    this.advance();
    return { kind: "timeUnit", unit, position: token.position };
  }

  private isFromKeyword(): boolean {
    return this.current.kind === "name" && asciiUpperCase(this.current.name) === FROM_KEYWORD;
  }

  private binary(operator: BinaryOperator, left: Expression, right: Expression, position: SourcePosition): Expression {
    return this.track({ kind: "binary", operator, left, right, position }, [left, right]);
  }

  private track<T extends CallArgument>(node: T, children: readonly CallArgument[]): T {
    let tallest = 0;
    for (const child of children) tallest = Math.max(tallest, this.heights.get(child) ?? 1);
    const height = tallest + 1;
    if (height > MAX_TREE_HEIGHT) {
      throw new ExpressionSyntaxError(
        `Expression is too complex (more than ${MAX_TREE_HEIGHT} levels of operations); split it into several metrics or fields`,
        node.position,
      );
    }
    this.heights.set(node, height);
    return node;
  }

  private enter(position: SourcePosition): void {
    this.depth += 1;
    if (this.depth > MAX_NESTING_DEPTH) {
      throw new ExpressionSyntaxError(`Expression is nested too deeply (maximum ${MAX_NESTING_DEPTH} levels)`, position);
    }
  }

  private leave(): void {
    this.depth -= 1;
  }

  private advance(): Token {
    const token = this.current;
    this.current = this.lexer.next();
    return token;
  }

  /** A method, not an inline test, so TypeScript does not keep a stale narrowing of `current`. */
  private isAtEnd(): boolean {
    return this.current.kind === "end";
  }

  private isKeyword(keyword: ReservedKeyword): boolean {
    return this.current.kind === "keyword" && this.current.keyword === keyword;
  }

  private isSymbol(symbol: Punctuation): boolean {
    return this.current.kind === "symbol" && this.current.symbol === symbol;
  }

  /** The current symbol if it is one of `candidates`. */
  private currentSymbol<T extends Punctuation>(...candidates: T[]): T | undefined {
    const token = this.current;
    return token.kind === "symbol" ? candidates.find((candidate) => candidate === token.symbol) : undefined;
  }

  private expectSymbol(symbol: Punctuation, expected: string): void {
    if (!this.isSymbol(symbol)) throw this.unexpected(expected);
    this.advance();
  }

  private expectKeyword(keyword: ReservedKeyword, expected: string): void {
    if (!this.isKeyword(keyword)) throw this.unexpected(expected);
    this.advance();
  }

  private unexpected(expected: string): ExpressionSyntaxError {
    const token = this.current;
    if (token.kind === "keyword" && token.keyword === "WHERE") {
      return new ExpressionSyntaxError("WHERE must directly follow an aggregate call, as in COUNT(x) WHERE code = 'LAX'", token.position);
    }
    return new ExpressionSyntaxError(`Expected ${expected} but found ${describeToken(token)}`, token.position);
  }
}
