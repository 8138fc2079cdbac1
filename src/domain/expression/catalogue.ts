import { FUNCTION_DEFINITIONS, type FunctionCategory, type FunctionLevel } from "./functions";
import { OPERATOR_DESCRIPTIONS, type OperatorDescription } from "./operators";
import { FROM_KEYWORD, RESERVED_KEYWORDS, TIME_UNITS } from "./tokens";

export interface CatalogueArgument {
  readonly name: string;
  readonly types: string[];
  readonly optional?: true;
  readonly variadic?: true;
}

export interface CatalogueFunction {
  readonly name: string;
  readonly category: FunctionCategory;
  readonly level: FunctionLevel;
  readonly arguments: CatalogueArgument[];
  readonly returnType: string;
  readonly description: string;
  readonly syntax: string;
}

export interface CatalogueKeyword {
  readonly keyword: string;
  /** Reserved words can only be used as names when double-quoted. */
  readonly reserved: boolean;
  readonly description: string;
}

export interface ExpressionSyntaxCatalogue {
  readonly functions: CatalogueFunction[];
  readonly operators: OperatorDescription[];
  readonly keywords: CatalogueKeyword[];
  readonly timeUnits: string[];
  readonly rules: string[];
}

const KEYWORD_DESCRIPTIONS: Readonly<Record<string, string>> = {
  AND: "Logical AND; also separates the bounds of BETWEEN.",
  BETWEEN: "Inclusive range test: x BETWEEN low AND high.",
  CASE: "Conditional value: CASE WHEN condition THEN value [...] [ELSE value] END, or CASE x WHEN value THEN result [...] [ELSE result] END.",
  ELSE: "Result of CASE when no WHEN matches (default NULL).",
  END: "Closes CASE.",
  FALSE: "Boolean literal, for conditions.",
  IN: "List membership: x IN (a, b, ...).",
  IS: "Null test: x IS NULL, x IS NOT NULL.",
  NOT: "Negation; also NOT IN, NOT BETWEEN, IS NOT NULL.",
  NULL: "The missing value; fits any type.",
  OR: "Logical OR.",
  THEN: "Result of a CASE branch.",
  TRUE: "Boolean literal, for conditions.",
  WHEN: "Starts a CASE branch.",
  WHERE: "Row filter for the aggregate call just before it: COUNT(x) WHERE code IN ('LAX', 'ORD'). The condition extends to the end of the enclosing parentheses or argument; write (SUM(x) WHERE a = 1) / SUM(y) to combine filtered aggregates.",
};

const RULES: readonly string[] = [
  "Keywords, function names and time units are case-insensitive; field and metric names are case-sensitive.",
  "A name that is not of the form letter-or-underscore followed by letters, digits, underscores or dots, or that is a reserved keyword, is written in double quotes: \"order date\"; a double quote inside is doubled.",
  "Text literals use single quotes; a single quote inside is doubled: 'it''s'.",
  "Numbers without a decimal point or exponent are INTEGER (42); others are NUMBER (4.2, 1e3).",
  "Time units are bare keywords and always the first argument: TRUNCATE_TIME(MONTH, order_date). EXTRACT also takes the SQL form EXTRACT(YEAR FROM order_date).",
  "NULL is accepted wherever a value is.",
  "INTEGER widens to NUMBER where they meet; TEXT with ATTRIBUTE gives ATTRIBUTE; '/' always gives NUMBER.",
  "A TIME can be compared with an ISO 8601 text literal: order_date >= '2024-01-01'.",
  "Custom metrics are aggregate level: fields must be inside an aggregate function; other custom metrics may be used directly. Derived fields are row level: no aggregates or custom metrics.",
  "A whole expression cannot be a bare condition (BOOLEAN); use CASE WHEN condition THEN ... ELSE ... END.",
  "Fields of type HIERARCHY cannot be used in expressions.",
];

/** The public, JSON-serialisable description of the expression language. */
export function expressionSyntaxCatalogue(): ExpressionSyntaxCatalogue {
  return {
    functions: FUNCTION_DEFINITIONS.map((definition) => ({
      name: definition.name,
      category: definition.category,
      level: definition.level,
      arguments: definition.arguments.map((parameter) => ({
        name: parameter.name,
        types: [...parameter.types],
        ...(parameter.optional === true ? { optional: true as const } : {}),
        ...(parameter.variadic === true ? { variadic: true as const } : {}),
      })),
      returnType: definition.returns.description,
      description: definition.description,
      syntax: definition.syntax,
    })),
    operators: OPERATOR_DESCRIPTIONS.map((operator) => ({ ...operator })),
    keywords: [
      ...RESERVED_KEYWORDS.map((keyword) => ({ keyword, reserved: true, description: KEYWORD_DESCRIPTIONS[keyword] ?? "" })),
      { keyword: FROM_KEYWORD, reserved: false, description: "Separates the unit from the time in EXTRACT(YEAR FROM order_date)." },
    ],
    timeUnits: [...TIME_UNITS],
    rules: [...RULES],
  };
}
