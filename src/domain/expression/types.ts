/** The data types of fields and metrics, as in the API. */
export const DATA_TYPES = ["ATTRIBUTE", "NUMBER", "INTEGER", "TIME", "TEXT", "HIERARCHY", "NULL"] as const;
export type DataType = (typeof DATA_TYPES)[number];

/**
 * Types an expression can have while it is checked. BOOLEAN exists only inside
 * expressions (conditions); HIERARCHY never appears because hierarchy fields are
 * rejected where they are referenced.
 */
export type ExpressionType = Exclude<DataType, "HIERARCHY"> | "BOOLEAN";

/** Value types a function argument may accept, plus the bare unit keyword. */
export type ArgumentType = "INTEGER" | "NUMBER" | "TEXT" | "ATTRIBUTE" | "TIME" | "TIME_UNIT";

export const NUMERIC_TYPES: readonly ArgumentType[] = ["INTEGER", "NUMBER"];
export const STRING_TYPES: readonly ArgumentType[] = ["TEXT", "ATTRIBUTE"];
export const TIME_TYPES: readonly ArgumentType[] = ["TIME"];
export const INTEGER_TYPES: readonly ArgumentType[] = ["INTEGER"];
export const VALUE_TYPES: readonly ArgumentType[] = ["INTEGER", "NUMBER", "TEXT", "ATTRIBUTE", "TIME"];
export const UNIT_TYPES: readonly ArgumentType[] = ["TIME_UNIT"];

export function isNumeric(type: ExpressionType): boolean {
  return type === "INTEGER" || type === "NUMBER" || type === "NULL";
}

export function isCondition(type: ExpressionType): boolean {
  return type === "BOOLEAN" || type === "NULL";
}

/**
 * The type two values share, or null when they are incompatible: NULL fits anything,
 * INTEGER widens to NUMBER, and TEXT with ATTRIBUTE gives ATTRIBUTE.
 */
export function commonType(first: ExpressionType, second: ExpressionType): ExpressionType | null {
  if (first === "NULL") return second;
  if (second === "NULL" || first === second) return first;
  if (isNumeric(first) && isNumeric(second)) return "NUMBER";
  if (isString(first) && isString(second)) return "ATTRIBUTE";
  return null;
}

function isString(type: ExpressionType): boolean {
  return type === "TEXT" || type === "ATTRIBUTE";
}

/** Formats `["INTEGER", "NUMBER", "TEXT"]` as "INTEGER, NUMBER or TEXT". */
export function describeTypes(types: readonly string[]): string {
  if (types.length <= 1) return types.join("");
  return `${types.slice(0, -1).join(", ")} or ${types[types.length - 1]}`;
}
