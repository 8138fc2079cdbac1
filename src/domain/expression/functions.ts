import { asciiUpperCase } from "./tokens";
import {
  commonType,
  INTEGER_TYPES,
  NUMERIC_TYPES,
  STRING_TYPES,
  TIME_TYPES,
  UNIT_TYPES,
  VALUE_TYPES,
  type ArgumentType,
  type ExpressionType,
} from "./types";

/**
 * The function registry: the single source of the names the parser knows (for unit
 * arguments and EXTRACT's FROM), the signatures the checker enforces and the public
 * syntax catalogue.
 */

export type FunctionCategory = "AGGREGATE" | "NUMERIC" | "TEXT" | "TIME" | "CONDITIONAL";

/**
 * aggregate: reduces many rows to one value; its arguments are row level.
 * row: works on one row's values; at aggregate level only inside an aggregate.
 * both: usable at either level; arguments are checked at the caller's level.
 */
export type FunctionLevel = "aggregate" | "row" | "both";

export interface ArgumentDefinition {
  readonly name: string;
  readonly types: readonly ArgumentType[];
  /** May be left out; only trailing arguments are optional. */
  readonly optional?: boolean;
  /** Repeats one or more times; only the last argument is variadic. */
  readonly variadic?: boolean;
}

export interface ReturnRule {
  /** Shown in the catalogue, e.g. "INTEGER" or "same as argument 'value'". */
  readonly description: string;
  /**
   * `argumentTypes[i]` is null for a `*` or a unit argument. Returns null when the
   * arguments have no common type, which the checker reports.
   */
  infer(argumentTypes: readonly (ExpressionType | null)[]): ExpressionType | null;
}

export interface FunctionDefinition {
  readonly name: string;
  readonly category: FunctionCategory;
  readonly level: FunctionLevel;
  readonly arguments: readonly ArgumentDefinition[];
  readonly returns: ReturnRule;
  readonly description: string;
  readonly syntax: string;
  /** `COUNT(*)`: a lone `*` stands for "every row". */
  readonly acceptsStar?: boolean;
  /** `EXTRACT(YEAR FROM t)`: FROM may replace the comma after the unit argument. */
  readonly unitFromSyntax?: boolean;
}

function returnsFixed(type: ExpressionType): ReturnRule {
  return { description: type, infer: () => type };
}

function returnsSameAs(index: number, argumentName: string): ReturnRule {
  return {
    description: `same as argument '${argumentName}'`,
    infer: (argumentTypes) => argumentTypes[index] ?? "NULL",
  };
}

function returnsCommonType(): ReturnRule {
  return {
    description: "common type of the arguments (INTEGER widens to NUMBER, TEXT with ATTRIBUTE gives ATTRIBUTE)",
    infer: (argumentTypes) => {
      let result: ExpressionType | null = "NULL";
      for (const type of argumentTypes) {
        if (result === null) break;
        if (type !== null) result = commonType(result, type);
      }
      return result;
    },
  };
}

function returnsJoinedText(): ReturnRule {
  return {
    description: "ATTRIBUTE if any argument is ATTRIBUTE, otherwise TEXT",
    infer: (argumentTypes) => (argumentTypes.includes("ATTRIBUTE") ? "ATTRIBUTE" : "TEXT"),
  };
}

function argument(name: string, types: readonly ArgumentType[], flags: { optional?: true; variadic?: true } = {}): ArgumentDefinition {
  return { name, types, ...flags };
}

const unitArgument = argument("unit", UNIT_TYPES);

function aggregate(
  name: string,
  types: readonly ArgumentType[],
  returns: ReturnRule,
  description: string,
  syntax: string,
  extra: Partial<FunctionDefinition> = {},
): FunctionDefinition {
  return { name, category: "AGGREGATE", level: "aggregate", arguments: [argument("value", types)], returns, description, syntax, ...extra };
}

/** A numeric function of one NUMBER-or-INTEGER argument. */
function numericFunction(name: string, returns: ReturnRule, description: string, syntax: string): FunctionDefinition {
  return { name, category: "NUMERIC", level: "both", arguments: [argument("value", NUMERIC_TYPES)], returns, description, syntax };
}

const NUMBER_RESULT = returnsFixed("NUMBER");
const INTEGER_RESULT = returnsFixed("INTEGER");

const DEFINITIONS: readonly FunctionDefinition[] = [
  // Aggregates
  aggregate("SUM", NUMERIC_TYPES, returnsSameAs(0, "value"), "Sum of the values.", "SUM(price)"),
  aggregate("AVG", NUMERIC_TYPES, NUMBER_RESULT, "Arithmetic mean of the values.", "AVG(price)"),
  aggregate("COUNT", VALUE_TYPES, INTEGER_RESULT, "Number of rows (COUNT(*)) or of non-null values.", "COUNT(*)", { acceptsStar: true }),
  aggregate("COUNTD", VALUE_TYPES, INTEGER_RESULT, "Number of distinct non-null values.", "COUNTD(customer_id)"),
  aggregate("MIN", VALUE_TYPES, returnsSameAs(0, "value"), "Smallest value.", "MIN(order_date)"),
  aggregate("MAX", VALUE_TYPES, returnsSameAs(0, "value"), "Largest value.", "MAX(order_date)"),
  aggregate("MEDIAN", NUMERIC_TYPES, NUMBER_RESULT, "Median of the values.", "MEDIAN(price)"),
  aggregate("FIRST_VALUE", VALUE_TYPES, returnsSameAs(0, "value"), "Value of the first row in the source's time order.", "FIRST_VALUE(price)"),
  aggregate("LAST_VALUE", VALUE_TYPES, returnsSameAs(0, "value"), "Value of the last row in the source's time order.", "LAST_VALUE(price)"),
  aggregate("STDDEV_POP", NUMERIC_TYPES, NUMBER_RESULT, "Population standard deviation.", "STDDEV_POP(price)"),
  aggregate("STDDEV_SAMP", NUMERIC_TYPES, NUMBER_RESULT, "Sample standard deviation.", "STDDEV_SAMP(price)"),
  aggregate("VAR_POP", NUMERIC_TYPES, NUMBER_RESULT, "Population variance.", "VAR_POP(price)"),
  aggregate("VAR_SAMP", NUMERIC_TYPES, NUMBER_RESULT, "Sample variance.", "VAR_SAMP(price)"),

  // Conditional
  {
    name: "COALESCE",
    category: "CONDITIONAL",
    level: "both",
    arguments: [argument("value", VALUE_TYPES, { variadic: true })],
    returns: returnsCommonType(),
    description: "First argument that is not null; all arguments must have compatible types.",
    syntax: "COALESCE(discount, 0)",
  },

  // Numeric
  {
    name: "POWER",
    category: "NUMERIC",
    level: "both",
    arguments: [argument("base", NUMERIC_TYPES), argument("exponent", NUMERIC_TYPES)],
    returns: NUMBER_RESULT,
    description: "base raised to the power exponent.",
    syntax: "POWER(price, 2)",
  },
  {
    name: "MOD",
    category: "NUMERIC",
    level: "both",
    arguments: [argument("dividend", NUMERIC_TYPES), argument("divisor", NUMERIC_TYPES)],
    returns: returnsCommonType(),
    description: "Remainder of dividend divided by divisor.",
    syntax: "MOD(quantity, 10)",
  },
  numericFunction("SQRT", NUMBER_RESULT, "Square root.", "SQRT(price)"),
  numericFunction("LN", NUMBER_RESULT, "Natural logarithm.", "LN(price)"),
  numericFunction("LOG10", NUMBER_RESULT, "Base-10 logarithm.", "LOG10(price)"),
  numericFunction("EXP", NUMBER_RESULT, "e raised to the power of the value.", "EXP(price)"),
  numericFunction("CEIL", INTEGER_RESULT, "Smallest integer not less than the value.", "CEIL(price)"),
  numericFunction("FLOOR", INTEGER_RESULT, "Largest integer not greater than the value.", "FLOOR(price)"),
  {
    name: "ROUND",
    category: "NUMERIC",
    level: "both",
    arguments: [argument("value", NUMERIC_TYPES), argument("decimals", INTEGER_TYPES, { optional: true })],
    returns: returnsSameAs(0, "value"),
    description: "Value rounded to the given number of decimal places (default 0).",
    syntax: "ROUND(price, 2)",
  },
  numericFunction("SIGN", INTEGER_RESULT, "-1, 0 or 1 according to the sign of the value.", "SIGN(profit)"),
  numericFunction("SIN", NUMBER_RESULT, "Sine of an angle in radians.", "SIN(angle)"),
  numericFunction("COS", NUMBER_RESULT, "Cosine of an angle in radians.", "COS(angle)"),
  numericFunction("TAN", NUMBER_RESULT, "Tangent of an angle in radians.", "TAN(angle)"),
  numericFunction("COT", NUMBER_RESULT, "Cotangent of an angle in radians.", "COT(angle)"),
  numericFunction("ASIN", NUMBER_RESULT, "Arc sine, in radians.", "ASIN(ratio)"),
  numericFunction("ACOS", NUMBER_RESULT, "Arc cosine, in radians.", "ACOS(ratio)"),
  numericFunction("ATAN", NUMBER_RESULT, "Arc tangent, in radians.", "ATAN(ratio)"),
  {
    name: "PI",
    category: "NUMERIC",
    level: "both",
    arguments: [],
    returns: NUMBER_RESULT,
    description: "The constant pi.",
    syntax: "PI()",
  },
  numericFunction("DEGREES", NUMBER_RESULT, "Radians converted to degrees.", "DEGREES(angle)"),
  numericFunction("RADIANS", NUMBER_RESULT, "Degrees converted to radians.", "RADIANS(angle)"),

  // Text (row level)
  {
    name: "CONCAT",
    category: "TEXT",
    level: "row",
    arguments: [argument("value", VALUE_TYPES, { variadic: true })],
    returns: returnsJoinedText(),
    description: "The arguments converted to text and joined.",
    syntax: "CONCAT(city, ', ', country)",
  },
  {
    name: "LENGTH",
    category: "TEXT",
    level: "row",
    arguments: [argument("text", STRING_TYPES)],
    returns: INTEGER_RESULT,
    description: "Number of characters.",
    syntax: "LENGTH(city)",
  },
  {
    name: "LOCATE",
    category: "TEXT",
    level: "row",
    arguments: [argument("substring", STRING_TYPES), argument("text", STRING_TYPES), argument("start", INTEGER_TYPES, { optional: true })],
    returns: INTEGER_RESULT,
    description: "1-based position of substring in text at or after start (default 1); 0 when absent.",
    syntax: "LOCATE('-', code)",
  },
  {
    name: "LOWER",
    category: "TEXT",
    level: "row",
    arguments: [argument("text", STRING_TYPES)],
    returns: returnsSameAs(0, "text"),
    description: "Text in lower case.",
    syntax: "LOWER(city)",
  },
  {
    name: "UPPER",
    category: "TEXT",
    level: "row",
    arguments: [argument("text", STRING_TYPES)],
    returns: returnsSameAs(0, "text"),
    description: "Text in upper case.",
    syntax: "UPPER(city)",
  },
  {
    name: "LPAD",
    category: "TEXT",
    level: "row",
    arguments: [argument("text", STRING_TYPES), argument("length", INTEGER_TYPES), argument("padding", STRING_TYPES, { optional: true })],
    returns: returnsSameAs(0, "text"),
    description: "Text padded on the left with padding (default a space) to length characters.",
    syntax: "LPAD(code, 6, '0')",
  },
  {
    name: "RPAD",
    category: "TEXT",
    level: "row",
    arguments: [argument("text", STRING_TYPES), argument("length", INTEGER_TYPES), argument("padding", STRING_TYPES, { optional: true })],
    returns: returnsSameAs(0, "text"),
    description: "Text padded on the right with padding (default a space) to length characters.",
    syntax: "RPAD(code, 6, '.')",
  },
  {
    name: "LTRIM",
    category: "TEXT",
    level: "row",
    arguments: [argument("text", STRING_TYPES)],
    returns: returnsSameAs(0, "text"),
    description: "Text without leading spaces.",
    syntax: "LTRIM(city)",
  },
  {
    name: "RTRIM",
    category: "TEXT",
    level: "row",
    arguments: [argument("text", STRING_TYPES)],
    returns: returnsSameAs(0, "text"),
    description: "Text without trailing spaces.",
    syntax: "RTRIM(city)",
  },
  {
    name: "SUBSTRING",
    category: "TEXT",
    level: "row",
    arguments: [argument("text", STRING_TYPES), argument("start", INTEGER_TYPES), argument("length", INTEGER_TYPES, { optional: true })],
    returns: returnsSameAs(0, "text"),
    description: "Part of text from the 1-based position start, length characters long (default: to the end).",
    syntax: "SUBSTRING(code, 1, 3)",
  },
  {
    name: "TEXT_TO_NUM",
    category: "TEXT",
    level: "row",
    arguments: [argument("text", STRING_TYPES)],
    returns: NUMBER_RESULT,
    description: "Text read as a number; null when it is not one.",
    syntax: "TEXT_TO_NUM(zip_code)",
  },
  {
    name: "NUM_TO_TEXT",
    category: "TEXT",
    level: "row",
    arguments: [argument("number", NUMERIC_TYPES)],
    returns: returnsFixed("TEXT"),
    description: "Number written as text.",
    syntax: "NUM_TO_TEXT(quantity)",
  },

  // Time (row level). The unit is always the first argument, written as a bare keyword.
  {
    name: "EXTRACT",
    category: "TIME",
    level: "row",
    arguments: [unitArgument, argument("time", TIME_TYPES)],
    returns: INTEGER_RESULT,
    description: "The given part of a time as a number (e.g. the year or the month 1-12). EXTRACT(YEAR, t) is also accepted.",
    syntax: "EXTRACT(YEAR FROM order_date)",
    unitFromSyntax: true,
  },
  {
    name: "NOW",
    category: "TIME",
    level: "row",
    arguments: [],
    returns: returnsFixed("TIME"),
    description: "Current time at query execution.",
    syntax: "NOW()",
  },
  {
    name: "TIME_ADD",
    category: "TIME",
    level: "row",
    arguments: [unitArgument, argument("amount", INTEGER_TYPES), argument("time", TIME_TYPES)],
    returns: returnsFixed("TIME"),
    description: "time moved by amount units (negative amounts move back).",
    syntax: "TIME_ADD(DAY, 7, order_date)",
  },
  {
    name: "TIME_DIFF",
    category: "TIME",
    level: "row",
    arguments: [unitArgument, argument("start", TIME_TYPES), argument("end", TIME_TYPES)],
    returns: INTEGER_RESULT,
    description: "Number of whole units from start to end.",
    syntax: "TIME_DIFF(DAY, order_date, ship_date)",
  },
  {
    name: "TRUNCATE_TIME",
    category: "TIME",
    level: "row",
    arguments: [unitArgument, argument("time", TIME_TYPES)],
    returns: returnsFixed("TIME"),
    description: "time rounded down to the start of its unit (e.g. the first day of the month).",
    syntax: "TRUNCATE_TIME(MONTH, order_date)",
  },
  {
    name: "TIME_TO_UNIX_TIME",
    category: "TIME",
    level: "row",
    arguments: [argument("time", TIME_TYPES)],
    returns: INTEGER_RESULT,
    description: "Seconds since 1970-01-01T00:00:00Z.",
    syntax: "TIME_TO_UNIX_TIME(order_date)",
  },
  {
    name: "UNIX_TIME_TO_TIME",
    category: "TIME",
    level: "row",
    arguments: [argument("seconds", NUMERIC_TYPES)],
    returns: returnsFixed("TIME"),
    description: "Time from seconds since 1970-01-01T00:00:00Z.",
    syntax: "UNIX_TIME_TO_TIME(created_epoch)",
  },
];

const definitionsByName: ReadonlyMap<string, FunctionDefinition> = new Map(DEFINITIONS.map((definition) => [definition.name, definition]));

export const FUNCTION_DEFINITIONS: readonly FunctionDefinition[] = DEFINITIONS;

/** Case-insensitive lookup (ASCII letters only, as for keywords). */
export function lookupFunction(name: string): FunctionDefinition | undefined {
  return definitionsByName.get(asciiUpperCase(name));
}

/** The definition of the argument at `index`, repeating a trailing variadic one. */
export function argumentAt(definition: FunctionDefinition, index: number): ArgumentDefinition | undefined {
  const { arguments: parameters } = definition;
  if (index < parameters.length) return parameters[index];
  const last = parameters[parameters.length - 1];
  return last?.variadic === true ? last : undefined;
}

export interface Arity {
  readonly minimum: number;
  readonly maximum: number;
}

export function arityOf(definition: FunctionDefinition): Arity {
  const parameters = definition.arguments;
  const minimum = parameters.filter((parameter) => parameter.optional !== true).length;
  const variadic = parameters.some((parameter) => parameter.variadic === true);
  return { minimum, maximum: variadic ? Number.POSITIVE_INFINITY : parameters.length };
}

export function isUnitArgument(parameter: ArgumentDefinition | undefined): boolean {
  return parameter?.types.includes("TIME_UNIT") === true;
}
