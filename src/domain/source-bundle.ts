import { checkExpressionTree, namesIn, parseExpression, type DataType, type ExpressionContext, type TypedName } from "./expression";
import { dataTypeOfNativeType, type FieldDataType } from "./source-fields";

/**
 * The rules of a source export bundle (the reference product's SourcesMigrationResource) that need
 * neither HTTP nor storage: which insertion strategy applies to an object, what an object's
 * outcome is called, and the check of a bundled source's fields and custom metrics as one set
 * (each item's data type and what it references, in an order where every item follows what it uses).
 */

export type Insertion = "CREATE" | "REUSE" | "UPDATE";
export interface InsertionStrategy {
  ifExists: Insertion;
  ifDoesNotExist: Insertion;
}
export type ObjectClass = "sources" | "connections";

export interface ImportSettings {
  globalLevel?: InsertionStrategy;
  objectClassLevel?: Partial<Record<ObjectClass, InsertionStrategy>>;
  /** Keyed by the id the object has in the bundle. */
  objectLevel?: Partial<Record<ObjectClass, Record<string, InsertionStrategy>>>;
}

/** Without settings: an object the account has is reused, a missing one created. */
export const DEFAULT_INSERTION: InsertionStrategy = { ifExists: "REUSE", ifDoesNotExist: "CREATE" };

/** The most specific strategy given: the object's own, its class's, the global one, else the default. */
export function insertionFor(settings: ImportSettings | undefined, objectClass: ObjectClass, bundleId: string): InsertionStrategy {
  return settings?.objectLevel?.[objectClass]?.[bundleId] ?? settings?.objectClassLevel?.[objectClass] ?? settings?.globalLevel ?? DEFAULT_INSERTION;
}

export type Action = "CREATE" | "REUSE" | "UPDATE";
export type ImportStatus = "CREATED" | "REUSED" | "UPDATED" | "FAILED" | "CAN_BE_CREATED" | "CAN_BE_REUSED" | "CAN_BE_UPDATED";

/**
 * What happens to one object: CREATE, REUSE or UPDATE, or a reason it cannot be imported. CREATE of
 * an object the account already has (by name) is refused: the name is taken.
 */
export function actionFor(strategy: InsertionStrategy, exists: boolean, noun: string, name: string): Action | { problem: string } {
  const chosen = exists ? strategy.ifExists : strategy.ifDoesNotExist;
  if (exists && chosen === "CREATE") return { problem: `The account already has a ${noun} named '${name}': ifExists CREATE cannot make a second one (use REUSE or UPDATE)` };
  if (!exists && chosen !== "CREATE") return { problem: `The account has no ${noun} named '${name}' to ${chosen === "REUSE" ? "reuse" : "update"} (ifDoesNotExist ${chosen})` };
  return chosen;
}

const DONE: Record<Action, ImportStatus> = { CREATE: "CREATED", REUSE: "REUSED", UPDATE: "UPDATED" };
const POSSIBLE: Record<Action, ImportStatus> = { CREATE: "CAN_BE_CREATED", REUSE: "CAN_BE_REUSED", UPDATE: "CAN_BE_UPDATED" };

/** The status an import answers for an object: what was done, or with dryRun what can be done. */
export function statusOf(action: Action | undefined, dryRun: boolean): ImportStatus {
  if (action === undefined) return "FAILED";
  return dryRun ? POSSIBLE[action] : DONE[action];
}

// ---------------------------------------------------------------- a bundled source's items

export type BundledOrigin =
  | { type: "NATIVE"; nativeOrigin: { originalName: string; originalType?: string } }
  | { type: "DERIVED"; derivedOrigin: { expression: string } }
  | { type: "HIERARCHY"; hierarchyOrigin: { childParent: { childField: string; parentField: string }; labelField?: string } };

export interface BundledField {
  name: string;
  dataType?: string;
  origin: BundledOrigin;
}
export interface BundledMetric {
  name: string;
  dataType?: string;
  expression: string;
}

export type ReferenceKind = "DERIVED_FIELD" | "CUSTOM_METRIC" | "HIERARCHY";

export interface CheckedItem {
  kind: "FIELD" | "METRIC";
  /** Index in the bundle's `fields` or `customMetrics`. */
  index: number;
  name: string;
  dataType: DataType;
  /** The names the item uses, and as what (none for a native field). */
  references: { kind: ReferenceKind; names: string[] } | null;
  /** A derived field's referenced fields, as the stored origin lists them. */
  referencedFields: string[];
}

export interface ItemProblem {
  /** Relative to the source in the bundle: `fields[2].origin.derivedOrigin.expression`. */
  member: string;
  message: string;
}

/**
 * Checks a bundled source's fields and metrics together: names are unique across both, each derived
 * field and metric is checked against the items it uses (checked first: a cycle is a problem),
 * hierarchies name two distinct non-hierarchy fields of one type, and a stated dataType agrees with
 * the one found. Answers the items in dependency order, or the problems.
 */
export function checkBundledItems(fields: readonly BundledField[], metrics: readonly BundledMetric[]): { items: CheckedItem[]; problems: ItemProblem[] } {
  const problems: ItemProblem[] = [];
  const entries = [
    ...fields.map((f, index) => ({ kind: "FIELD" as const, index, name: f.name, field: f, metric: undefined })),
    ...metrics.map((m, index) => ({ kind: "METRIC" as const, index, name: m.name, field: undefined, metric: m })),
  ];
  const at = (e: (typeof entries)[number]) => (e.kind === "FIELD" ? `fields[${e.index}]` : `customMetrics[${e.index}]`);
  const byName = new Map<string, (typeof entries)[number]>();
  for (const e of entries) {
    if (byName.has(e.name)) problems.push({ member: `${at(e)}.name`, message: `The name '${e.name}' is used twice in the source` });
    else byName.set(e.name, e);
  }
  if (problems.length > 0) return { items: [], problems };

  const fieldTypes = new Map<string, TypedName>();
  const metricTypes = new Map<string, TypedName>();
  const done = new Map<string, CheckedItem | null>();
  const visiting = new Set<string>();

  const check = (e: (typeof entries)[number]): CheckedItem | null => {
    if (done.has(e.name)) return done.get(e.name)!;
    if (visiting.has(e.name)) {
      problems.push({ member: at(e), message: `'${e.name}' references itself through other items (a cycle)` });
      done.set(e.name, null);
      return null;
    }
    visiting.add(e.name);
    const item = resolve(e);
    visiting.delete(e.name);
    done.set(e.name, item);
    if (item) (item.kind === "FIELD" ? fieldTypes : metricTypes).set(item.name, { dataType: item.dataType });
    if (item) order.push(item);
    return item;
  };
  const order: CheckedItem[] = [];

  /** Checks the items an expression names first; false when one of them failed. */
  const dependenciesHold = (names: readonly string[], self: string) =>
    names.every((n) => {
      const used = byName.get(n);
      return n === self || !used || check(used) !== null;
    });

  const agrees = (e: (typeof entries)[number], stated: string | undefined, found: DataType) => {
    if (stated === undefined || stated === found) return true;
    problems.push({ member: `${at(e)}.dataType`, message: `dataType ${stated} contradicts the type found, ${found}` });
    return false;
  };

  const resolveExpression = (e: (typeof entries)[number], text: string, member: string, level: "row" | "aggregate") => {
    const parsed = parseExpression(text);
    if (!parsed.ok) {
      problems.push({ member, message: parsed.error.message });
      return null;
    }
    const names = namesIn(parsed.ast);
    if (!dependenciesHold(names, e.name)) return null;
    const context: ExpressionContext = { fields: fieldTypes, metrics: level === "row" ? new Map() : metricTypes, selfName: e.name };
    const result = checkExpressionTree(parsed.ast, context, level);
    if (!result.ok) {
      problems.push({ member, message: result.error.message });
      return null;
    }
    return result;
  };

  const resolve = (e: (typeof entries)[number]): CheckedItem | null => {
    if (e.metric) {
      const result = resolveExpression(e, e.metric.expression, `${at(e)}.expression`, "aggregate");
      if (!result || !agrees(e, e.metric.dataType, result.dataType)) return null;
      const names = [...result.referencedFields, ...result.referencedMetrics];
      return { kind: "METRIC", index: e.index, name: e.name, dataType: result.dataType, references: { kind: "CUSTOM_METRIC", names }, referencedFields: [] };
    }
    const origin = e.field!.origin;
    if (origin.type === "NATIVE") {
      const dataType: FieldDataType = (e.field!.dataType as FieldDataType | undefined) ?? dataTypeOfNativeType(origin.nativeOrigin.originalType);
      if (dataType === "HIERARCHY") {
        problems.push({ member: `${at(e)}.dataType`, message: "Only a HIERARCHY origin has the data type HIERARCHY" });
        return null;
      }
      return { kind: "FIELD", index: e.index, name: e.name, dataType, references: null, referencedFields: [] };
    }
    if (origin.type === "DERIVED") {
      const result = resolveExpression(e, origin.derivedOrigin.expression, `${at(e)}.origin.derivedOrigin.expression`, "row");
      if (!result || !agrees(e, e.field!.dataType, result.dataType)) return null;
      return { kind: "FIELD", index: e.index, name: e.name, dataType: result.dataType, references: { kind: "DERIVED_FIELD", names: result.referencedFields }, referencedFields: result.referencedFields };
    }
    const { childParent, labelField } = origin.hierarchyOrigin;
    const member = (name: string, path: string) => {
      const used = byName.get(name);
      const checked = used && used.kind === "FIELD" && name !== e.name ? check(used) : null;
      if (!checked) problems.push({ member: `${at(e)}.origin.hierarchyOrigin.${path}`, message: `Field '${name}' is not a valid field of the source` });
      else if (checked.dataType === "HIERARCHY") problems.push({ member: `${at(e)}.origin.hierarchyOrigin.${path}`, message: `Field '${name}' is itself a hierarchy` });
      else return checked;
      return null;
    };
    const child = member(childParent.childField, "childParent.childField");
    const parent = member(childParent.parentField, "childParent.parentField");
    const label = labelField === undefined ? undefined : member(labelField, "labelField");
    if (!child || !parent || label === null) return null;
    if (child.name === parent.name || child.dataType !== parent.dataType) {
      problems.push({ member: `${at(e)}.origin.hierarchyOrigin.childParent`, message: "Child and parent must be two different fields of the same type" });
      return null;
    }
    if (!agrees(e, e.field!.dataType, "HIERARCHY")) return null;
    const names = [child.name, parent.name, ...(labelField ? [labelField] : [])];
    return { kind: "FIELD", index: e.index, name: e.name, dataType: "HIERARCHY", references: { kind: "HIERARCHY", names }, referencedFields: [] };
  };

  for (const e of entries) check(e);
  return problems.length > 0 ? { items: [], problems } : { items: order, problems };
}
