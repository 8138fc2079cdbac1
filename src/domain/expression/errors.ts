import type { SourcePosition } from "./ast";

/** SYNTAX: the text cannot be parsed. VALIDATION: it parses but does not make sense here. */
export type ExpressionErrorType = "SYNTAX" | "VALIDATION";

/** Plain, JSON-serialisable error description; line and column are 1-based. */
export interface ExpressionError {
  readonly type: ExpressionErrorType;
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/**
 * The only exception the lexer and parser throw. `parseExpression` catches it and
 * returns it as a value, so callers never see it unless they use the internals.
 */
export class ExpressionSyntaxError extends Error {
  readonly position: SourcePosition;

  constructor(message: string, position: SourcePosition) {
    super(message);
    this.name = "ExpressionSyntaxError";
    this.position = position;
  }

  toExpressionError(): ExpressionError {
    return errorAt("SYNTAX", this.message, this.position);
  }
}

/** Thrown inside the checker to stop at the first problem; never escapes `checkExpression`. */
export class ExpressionValidationError extends Error {
  readonly position: SourcePosition;

  constructor(message: string, position: SourcePosition) {
    super(message);
    this.name = "ExpressionValidationError";
    this.position = position;
  }

  toExpressionError(): ExpressionError {
    return errorAt("VALIDATION", this.message, this.position);
  }
}

export function errorAt(type: ExpressionErrorType, message: string, position: SourcePosition): ExpressionError {
  return { type, message, line: position.line, column: position.column };
}
