import { dataTypeOfNativeType, defaultMetricFor, firstFreeName, labelFromName, nameFromText, type FieldDataType } from "../../domain/source-fields";
import { ApiError, invalid } from "../../lib/errors";
import { auditOut, type AuditColumns } from "../../lib/http";
import type { FieldInput } from "./fields.schemas";

/**
 * A field as stored: `name` and `dataType` are columns of source_items, every other member
 * lives in `body` as the API shapes it. No database or HTTP here: handlers resolve what
 * needs the source (derived expressions, hierarchy members) and pass the outcome in.
 */
export type StoredOrigin =
  | { type: "NATIVE"; nativeOrigin: Record<string, unknown> & { originalName: string } }
  | { type: "DERIVED"; derivedOrigin: { expression: string; calendarId?: string; referencedFieldNames: string[] } }
  | { type: "HIERARCHY"; hierarchyOrigin: { childParent: { childField: string; parentField: string }; labelField?: string } };

export interface ResolvedField {
  name: string;
  dataType: FieldDataType;
  body: Record<string, unknown>;
}

/** Picks the field's name: the one given, else one generated from its label or original name. */
export function chooseFieldName(input: FieldInput, taken: ReadonlySet<string>): string {
  if (input.name) return input.name;
  const native = input.origin.type === "NATIVE" ? input.origin.nativeOrigin.originalName : "";
  return firstFreeName(nameFromText(input.label ?? "") || nameFromText(native), taken);
}

/** The data type a NATIVE origin implies, unless the client states one. */
export function nativeDataType(input: FieldInput): FieldDataType {
  if (input.origin.type !== "NATIVE") throw new Error("not a native field");
  if (input.dataType === "HIERARCHY") throw invalid("body.dataType", "Only a HIERARCHY origin has the data type HIERARCHY");
  return input.dataType ?? dataTypeOfNativeType(input.origin.nativeOrigin.originalType);
}

/** A stated dataType must agree with the one the origin implies. */
export function assertDataTypeAgrees(input: FieldInput, detected: FieldDataType): void {
  if (input.dataType !== undefined && input.dataType !== detected) {
    throw invalid("body.dataType", `dataType ${input.dataType} contradicts the type detected from the origin, ${detected}`);
  }
}

export function buildField(
  input: FieldInput,
  name: string,
  dataType: FieldDataType,
  origin: StoredOrigin,
  sourceFeatures: readonly string[],
): ResolvedField {
  if (input.facetFiltering && !sourceFeatures.includes("TEXT_SEARCH")) {
    throw new ApiError("VALIDATION_FAILED", "facetFiltering is only available for sources with the TEXT_SEARCH feature", {
      problems: [{ name: "body.facetFiltering", message: "The source has no TEXT_SEARCH feature", level: "ERROR" }],
    });
  }
  const body: Record<string, unknown> = {
    origin,
    label: input.label || labelFromName(name),
    visible: input.visible,
    defaultMetric: input.defaultMetric ?? defaultMetricFor(dataType),
    granularity: input.granularity ?? null,
    disabledCapabilities: input.disabledCapabilities ?? [],
    fieldMetadata: input.fieldMetadata ?? {},
  };
  for (const key of ["format", "statistics", "facetFiltering"] as const) if (input[key] !== undefined) body[key] = input[key];
  return { name, dataType, body };
}

export function toField(row: { name: string; dataType: string; body: Record<string, unknown> } & AuditColumns) {
  const body = row.body as Record<string, unknown> & { origin: StoredOrigin };
  const originalName = body.origin.type === "NATIVE" ? body.origin.nativeOrigin.originalName : null;
  return {
    ...body,
    name: row.name,
    dataType: row.dataType,
    rawFormatSupportTimeGroup: row.dataType === "TIME",
    fieldName: row.name,
    originalFieldName: originalName,
    ...auditOut(row),
  } as never;
}
