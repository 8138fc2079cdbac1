// Public API of the expression language used by custom metrics (aggregate level)
// and derived fields (row level). Pure TypeScript: no HTTP, database or runtime APIs.
export type {
  BetweenExpression,
  BinaryExpression,
  BinaryOperator,
  BooleanLiteral,
  CallArgument,
  CaseBranch,
  CaseExpression,
  Expression,
  FunctionCall,
  InExpression,
  IsNullExpression,
  NameReference,
  NullLiteral,
  NumberLiteral,
  SourcePosition,
  StarArgument,
  StringLiteral,
  TimeUnitArgument,
  UnaryExpression,
  UnaryOperator,
} from "./ast";
export { withoutPositions } from "./ast";
export type { CatalogueArgument, CatalogueFunction, CatalogueKeyword, ExpressionSyntaxCatalogue } from "./catalogue";
export { expressionSyntaxCatalogue } from "./catalogue";
export type { CheckResult, ExpressionContext, ExpressionLevel, ItemRef, TypedName } from "./checker";
export { checkExpression, checkExpressionTree, expressionContext } from "./checker";
export { findMetricCycle } from "./cycles";
export type { ExpressionError, ExpressionErrorType } from "./errors";
export type { ArgumentDefinition, FunctionCategory, FunctionDefinition, FunctionLevel } from "./functions";
export { FUNCTION_DEFINITIONS, lookupFunction } from "./functions";
export { MAX_NESTING_DEPTH, MAX_TREE_HEIGHT } from "./limits";
export type { ParseResult } from "./parser";
export { parseExpression } from "./parser";
export { namesIn } from "./names";
export { printExpression } from "./printer";
export type { TimeUnit } from "./tokens";
export { TIME_UNITS } from "./tokens";
export type { ArgumentType, DataType, ExpressionType } from "./types";
export { DATA_TYPES } from "./types";
