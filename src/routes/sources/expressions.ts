import type { CheckResult, DataType, ExpressionError } from "../../domain/expression";

export interface ValidationResult {
  valid: boolean;
  dataType: Exclude<DataType, "BOOLEAN"> | null;
  referencedFields: string[];
  error: { type: "NONE" | "SYNTAX" | "VALIDATION" | "DUPLICATED"; message: string | null; syntaxError: { line: number; column: number } | null };
}
import { ApiError } from "../../lib/errors";

/** An expression's syntax or validation error as a 400 whose Problem names the member that holds it. */
export function expressionError(error: ExpressionError, member: string): ApiError {
  const message = `${error.message} (line ${error.line}, column ${error.column})`;
  return new ApiError("VALIDATION_FAILED", message, { problems: [{ name: member, message, level: "ERROR" }] });
}

/** The body of the validate endpoints: `valid: false` is an answer, not an error. */
export function validationResult(result: CheckResult | { ok: false; error: { type: "DUPLICATED"; message: string } }): ValidationResult {
  if (result.ok) {
    return {
      valid: true,
      dataType: result.dataType as ValidationResult["dataType"],
      referencedFields: result.referencedFields,
      error: { type: "NONE" as const, message: null, syntaxError: null },
    };
  }
  const { error } = result;
  return {
    valid: false,
    dataType: null,
    referencedFields: [],
    error: {
      type: error.type,
      message: error.message,
      syntaxError: "line" in error ? { line: error.line, column: error.column } : null,
    },
  };
}
