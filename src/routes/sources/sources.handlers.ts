import { z } from "@hono/zod-openapi";
import { ROW_CHANGED } from "../../db/audit-trail";
import { diffMembers } from "../../domain/audit/changes";
import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { asViewUsages, selectViewsOfSource } from "../../db/materialized-views";
import { loadSource, readableByEach, requireSource, selectSourceWithAccess } from "../../db/source-access";
import { selectPrincipalsOfAccount } from "../../db/principals";
import { insertItems, inUse } from "../../db/source-items";
import { quotaGuardStatement, rethrowQuotaExceeded } from "../../db/quota";
import { refusedFor, refuseUnlessConnectionExists } from "../../db/connections";
import { compiled, compiledRowUpdate, inBatch, placeholders } from "../../db/compiled";
import { refusedBy, refuseWhen, WRITE_CONFLICT_GUARD } from "../../db/batch-guards";
import { sourceItems, sourcePermissions, sourceReferences, sources } from "../../db/schema";
import { expressionSyntaxCatalogue } from "../../domain/expression";
import { constantAnswer } from "../../lib/constant-answer";
import type { UserPrincipal } from "../../domain/principal";
import { aliased } from "../../lib/aliases";
import { ApiError, duplicated, invalid, isConstraintError, type Problem } from "../../lib/errors";
import { assertSameId, auditForCreate, auditForUpdate, auditOut, checkIfMatch, etagOf, keysetPlan, locationOf, newRevision, patchChanges, perPageShape, ifMatchValue } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import type { AppEnv } from "../../lib/types";
import type { Context } from "hono";
import { VOLUME_METRIC } from "../custom-metrics/metrics.model";
import { buildField, chooseFieldName, nativeDataType } from "../source-fields/fields.model";
import { nativeFieldsOfTable } from "../data-entities/table-fields";
import { FieldCreateSchema, type FieldInput } from "../source-fields/fields.schemas";
import type { SourceCreate } from "./sources.schemas";
import { securityOf } from "./sources.model";
import type * as routes from "./sources.routes";

type SourceRow = typeof sources.$inferSelect;

function toSource(row: SourceRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description ?? null,
    accountId: row.accountId,
    connectionId: row.connectionId ?? null,
    features: row.features,
    enabled: row.enabled,
    ownerUserId: row.ownerUserId ?? null,
    ...auditOut(row),
  };
}

const nameTaken = (name: string) => duplicated(`A source named '${name}' already exists in the account`);

// The sources the caller may read, by name, compiled once per isolate for each page shape and kind of reader (db/compiled.ts).
const sourcesPage = perPageShape(sources.name, (page) =>
  readableByEach((db, readable) => db.select().from(sources).where(and(readable, page.keyCondition)).orderBy(page.orderBy).limit(page.limit)),
);

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const query = c.req.valid("query");
  const db = c.get("db");
  const principal = c.get("principal");
  // The readable set depends on the caller, so the token is bound to it as well as to the account.
  const binding = { list: "sources", account: principal.kind === "user" ? principal.accountId : "*", filters: { caller: principal.id } };
  const plan = await keysetPlan(c, binding, sources.name, (r: SourceRow) => r.name, query);
  const { query: pageQuery, values } = sourcesPage[plan.shape](db, principal);
  const page = await plan.toPage(await pageQuery.all({ ...values, ...plan.pageValues }));
  return c.json({ content: page.content.map(toSource), pageInfo: page.pageInfo }, 200);
};

/**
 * The connection and inline fields of a create body: our `connectionId` and `fields`, or the
 * reference product's `storage.dataEntities[0]` (src/lib/aliases.ts), with the member to name in a Problem.
 */
function connectionAndFieldsOf(body: SourceCreate) {
  const entity = body.storage?.dataEntities[0];
  const at = "body.storage.dataEntities[0]";
  const connection = { name: `${at}.singleCollection.connectionId`, value: entity?.singleCollection?.connectionId };
  const nativeFields = { name: `${at}.nativeFields`, value: entity?.nativeFields };
  const connectionId = aliased({ name: "body.connectionId", value: body.connectionId }, connection);
  const fields = aliased({ name: "body.fields", value: body.fields }, nativeFields);
  const { schema, collection } = entity?.singleCollection ?? {};
  return {
    connectionId,
    connectionMember: body.connectionId === undefined && connection.value !== undefined ? connection.name : "body.connectionId",
    fields: fields ?? [],
    fieldsMember: body.fields === undefined && nativeFields.value !== undefined ? nativeFields.name : "body.fields",
    // The reference's storage names a table and sends no fields: they are read from the table.
    table: fields === undefined && connectionId && schema && collection ? { connectionId, schema, table: collection } : undefined,
    tableMember: `${at}.singleCollection.collection`,
  };
}

/** The fields of the table a create's storage names; the connection and the table are members of the body, so their absence is a 400 naming them. */
async function fieldsOfStorageTable(c: Parameters<AppRouteHandler<typeof routes.create>>[0], given: ReturnType<typeof connectionAndFieldsOf>): Promise<FieldInput[]> {
  try {
    // Through the schema a body's fields go through, so that they get the same defaults (visible, ...).
    return z.array(FieldCreateSchema).parse(await nativeFieldsOfTable(c, given.table!, c.req.valid("query").suppressWarnings));
  } catch (err) {
    if (err instanceof ApiError && err.errorCode === "NOT_FOUND") throw invalid(given.connectionMember, "No connection with this id in the account");
    if (err instanceof ApiError && err.errorCode === "DATA_STORE_NOT_FOUND") throw invalid(given.tableMember, err.message);
    throw err;
  }
}

export const create: AppRouteHandler<typeof routes.create> = async (c) => {
  const body = c.req.valid("json");
  const db = c.get("db");
  // The route demands ROLE_CREATE_SOURCES, which only users of an account hold.
  const principal = c.get("principal") as UserPrincipal;
  const accountId = principal.accountId;

  const given = connectionAndFieldsOf(body);
  const inputs = given.table ? await fieldsOfStorageTable(c, given) : given.fields;
  const taken = new Set<string>([VOLUME_METRIC.name]);
  const problems: Problem[] = [];
  let nameUsedTwice = false;
  const fields = inputs.flatMap((input, i) => {
    if (input.origin.type !== "NATIVE") {
      problems.push({ name: `${given.fieldsMember}[${i}].origin.type`, message: "Fields created with a source must be NATIVE", level: "ERROR" });
      return [];
    }
    const name = chooseFieldName(input, taken);
    if (taken.has(name)) {
      nameUsedTwice = true;
      problems.push({ name: `${given.fieldsMember}[${i}].name`, message: `The name '${name}' is used twice`, level: "ERROR" });
      return [];
    }
    taken.add(name);
    try {
      return [buildField(input, name, nativeDataType(input), input.origin, body.features)];
    } catch (err) {
      // The field rules name members from the field's root (body.dataType): re-root them at this entry.
      if (!(err instanceof ApiError) || !err.problems) throw err;
      problems.push(...err.problems.map((p) => ({ ...p, name: p.name.replace(/^body\./, `${given.fieldsMember}[${i}].`) })));
      return [];
    }
  });
  if (problems.length > 0) {
    throw new ApiError(nameUsedTwice ? "DUPLICATED" : "VALIDATION_FAILED", "Invalid inline fields", { problems });
  }

  const audit = auditForCreate(principal);
  const id = crypto.randomUUID();
  const source = {
    id,
    revision: newRevision(),
    accountId,
    name: body.name,
    description: body.description ?? null,
    connectionId: given.connectionId ?? null,
    features: [...new Set(body.features)],
    enabled: body.enabled,
    ownerUserId: principal.id,
    fieldsSecurityEnabled: false,
    customMetricsSecurityEnabled: false,
    ...audit,
  };
  const items = [
    { ...VOLUME_METRIC, kind: "METRIC" },
    ...fields.map((f) => ({ ...f, kind: "FIELD" })),
  ].map((item) => ({ id: crypto.randomUUID(), revision: newRevision(), sourceId: id, accountId, ...item, ...audit }));
  // The quota guard first: it fails the whole batch when the account is at its SOURCE limit. The
  // connection guard refuses a connection that is not the account's (or was deleted meanwhile).
  const statements: BatchItem<"sqlite">[] = [
    quotaGuardStatement(db, accountId, "SOURCE"),
    ...(source.connectionId === null ? [] : [refuseUnlessConnectionExists(db, accountId, source.connectionId)]),
    db.insert(sources).values(source),
  ];
  statements.push(...insertItems(db, items));
  // Its inline fields are part of the source's create: one event.
  c.get("audit").record({ accountId, action: "source.create", target: sourceTarget(source) });
  try {
    await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  } catch (err) {
    await rethrowQuotaExceeded(db, err, accountId, "SOURCE");
    // Another account's connection and a missing one get the same answer.
    if (refusedFor(err, "connection_missing")) throw invalid(given.connectionMember, "No connection with this id in the account");
    if (isConstraintError(err, "UNIQUE")) throw nameTaken(body.name);
    throw err;
  }
  c.header("Location", locationOf(c, id));
  c.header("ETag", etagOf(source.revision));
  return c.json(toSource(source), 201);
};

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const { source } = await loadSource(c.get("db"), c.get("principal"), c.req.valid("param").sourceId, "READ");
  c.header("ETag", etagOf(source.revision));
  return c.json(toSource(source), 200);
};

export const patch: AppRouteHandler<typeof routes.patch> = async (c) => {
  const body = c.req.valid("json");
  const { source } = await loadSource(c.get("db"), c.get("principal"), c.req.valid("param").sourceId, "WRITE");
  checkIfMatch(c, source.revision);
  const updated = await writeSource(c, source, patchChanges(body, c.get("principal")), []);
  c.header("ETag", etagOf(updated.revision));
  return c.json(toSource(updated), 200);
};

/**
 * The reference product's PUT: the source's own members replaced as a whole, in one batch with the
 * guards that what it names still holds (its connection is the account's; no field uses
 * facetFiltering once TEXT_SEARCH is gone). Two round trips, as PATCH.
 */
export const replace: AppRouteHandler<typeof routes.replace> = async (c) => {
  const body = c.req.valid("json");
  const db = c.get("db");
  const principal = c.get("principal");
  const { sourceId } = c.req.valid("param");
  assertSameId(body.id, sourceId);
  const entity = body.storage?.dataEntities[0];
  if (body.fields !== undefined) throw invalid("body.fields", "Fields are changed through /api/sources/{sourceId}/fields, not by replacing the source");
  if (entity?.nativeFields !== undefined) {
    throw invalid("body.storage.dataEntities[0].nativeFields", "Fields are changed through /api/sources/{sourceId}/fields, not by replacing the source");
  }
  const connection = { name: "body.storage.dataEntities[0].singleCollection.connectionId", value: entity?.singleCollection?.connectionId };
  const connectionId = aliased({ name: "body.connectionId", value: body.connectionId ?? undefined }, connection) ?? null;
  const connectionMember = body.connectionId == null && connection.value !== undefined ? connection.name : "body.connectionId";

  const { source } = await loadSource(db, principal, sourceId, "WRITE");
  checkIfMatch(c, source.revision);
  if (body.accountId !== undefined && body.accountId !== source.accountId) throw invalid("body.accountId", "A source cannot move to another account");
  const features = [...new Set(body.features)];
  const guards: BatchItem<"sqlite">[] = [
    ...(connectionId === null ? [] : [refuseUnlessConnectionExists(db, source.accountId, connectionId)]),
    ...(features.includes("TEXT_SEARCH") ? [] : [inBatch(refuseWhileFieldsUseFacetFiltering(db), { sourceId: source.id })]),
  ];
  const changes = { name: body.name, description: body.description ?? null, connectionId, features, enabled: body.enabled, revision: newRevision(), ...auditForUpdate(principal) };
  let updated: SourceRow;
  try {
    updated = await writeSource(c, source, changes, guards);
  } catch (err) {
    // Another account's connection and a missing one get the same answer.
    if (refusedFor(err, "connection_missing")) throw invalid(connectionMember, "No connection with this id in the account");
    if (refusedBy(err, WRITE_CONFLICT_GUARD)) {
      throw invalid("body.features", "Fields of the source use facetFiltering, which needs TEXT_SEARCH: keep the feature, or turn facetFiltering off on them first");
    }
    throw err;
  }
  c.header("ETag", etagOf(updated.revision));
  return c.json(toSource(updated), 200);
};

// The PUT's and PATCH's statements, compiled once per isolate (db/compiled.ts).
const refuseWhileFieldsUseFacetFiltering = compiled((db) =>
  refuseWhen(
    db,
    WRITE_CONFLICT_GUARD,
    sql`EXISTS (SELECT 1 FROM source_items WHERE source_id = ${sql.placeholder("sourceId")} AND kind = 'FIELD' AND json_extract(body, '$.facetFiltering') IS NOT NULL)`,
    "facet_filtering_needs_text_search",
  ),
);
/**
 * A source's update, for each set of members it sets (sorted): the PUT's, and a PATCH's (name,
 * description, enabled, each sent or not: eight), made when first needed.
 */
const sourceUpdate = compiledRowUpdate(sources, sources.id, sources.revision);

/**
 * The update of a source after `guards`, in one batch, guarded by If-Match: a taken name is 409, a
 * lost race 412. It sets exactly the members of `changes`.
 */
async function writeSource(c: Context<AppEnv>, source: SourceRow, changes: Partial<SourceRow>, guards: BatchItem<"sqlite">[]): Promise<SourceRow> {
  const db = c.get("db");
  // PATCH and PUT: the event rides on the update and is written only if it changed the row.
  c.get("audit").recordIf(ROW_CHANGED, {
    accountId: source.accountId,
    action: "source.update",
    target: sourceTarget({ ...source, ...changes }),
    changes: diffMembers(toSource(source), toSource({ ...source, ...changes })),
  });
  const members = (Object.keys(changes) as (keyof SourceRow)[]).sort();
  const update = inBatch(sourceUpdate(db, members), { ...changes, id: source.id, ifMatch: ifMatchValue(c, source.revision) });
  let rows: SourceRow[];
  try {
    const statements: BatchItem<"sqlite">[] = [...guards, update];
    rows = (await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])).at(-1) as SourceRow[];
  } catch (err) {
    if (isConstraintError(err, "UNIQUE")) throw nameTaken(changes.name ?? source.name);
    throw err;
  }
  if (!rows[0]) throw new ApiError("PRECONDITION_FAILED", "The source was changed concurrently; reload it and retry");
  return rows[0];
}

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const db = c.get("db");
  const principal = c.get("principal");
  const { sourceId } = c.req.valid("param");
  // The views on the source are read with it: whoever may delete it (WRITE) may read them all.
  const [access, views] = await db.batch([selectSourceWithAccess(db, principal, sourceId), selectViewsOfSource(db, principal.kind === "user" ? principal.accountId : "", sourceId)]);
  const { source } = requireSource(principal, access[0], "WRITE");
  checkIfMatch(c, source.revision);
  // An account holds at most 100 views, so the list is whole.
  const refuseInUse = (found: { id: string; name: string }[]): never => {
    throw inUse(source.name, asViewUsages(found), "delete the source");
  };
  if (views.length > 0) refuseInUse(views);
  c.get("audit").recordIf(ROW_CHANGED, { accountId: source.accountId, action: "source.delete", target: sourceTarget(source) });
  try {
    await db.batch(SOURCE_DELETION.map((statement) => inBatch(statement(db), { sourceId: source.id })) as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  } catch (err) {
    // A view took the source up meanwhile: its foreign key refused the delete.
    if (isConstraintError(err, "FOREIGN KEY")) {
      const [found] = await db.batch([selectViewsOfSource(db, source.accountId, source.id)]);
      if (found.length > 0) refuseInUse(found);
    }
    throw err;
  }
  return c.body(null, 204);
};

// A source's deletion, its references, items and grants first: compiled once per isolate (db/compiled.ts).
const SOURCE_DELETION = [
  compiled((db) => db.delete(sourceReferences).where(eq(sourceReferences.sourceId, sql.placeholder("sourceId")))),
  compiled((db) => db.delete(sourceItems).where(eq(sourceItems.sourceId, sql.placeholder("sourceId")))),
  compiled((db) => db.delete(sourcePermissions).where(eq(sourcePermissions.sourceId, sql.placeholder("sourceId")))),
  compiled((db) => db.delete(sources).where(eq(sources.id, sql.placeholder("sourceId")))),
];

type Grant = { principalType: "USER" | "GROUP"; principalId: string; permission: "READ" | "WRITE" };
const byGrantee = (a: Grant, b: Grant) => (a.principalType + a.principalId < b.principalType + b.principalId ? -1 : 1);
const sourceTarget = (row: { id: string; name: string }) => ({ type: "source" as const, id: row.id, name: row.name });

export const getPermissions: AppRouteHandler<typeof routes.getPermissions> = async (c) => {
  const { source } = await loadSource(c.get("db"), c.get("principal"), c.req.valid("param").sourceId, "WRITE");
  const grants = (await grantsOfSource(c.get("db")).all({ sourceId: source.id })) as Grant[];
  return c.json({ content: grants }, 200);
};
// Compiled once per isolate (db/compiled.ts).
const grantsOfSource = compiled((db) =>
  db
    .select({ principalType: sourcePermissions.principalType, principalId: sourcePermissions.principalId, permission: sourcePermissions.permission })
    .from(sourcePermissions)
    .where(eq(sourcePermissions.sourceId, sql.placeholder("sourceId")))
    .orderBy(sourcePermissions.principalType, sourcePermissions.principalId),
);

export const putPermissions: AppRouteHandler<typeof routes.putPermissions> = async (c) => {
  const { content } = c.req.valid("json");
  const db = c.get("db");
  const { source } = await loadSource(db, c.get("principal"), c.req.valid("param").sourceId, "WRITE");
  const [grantsBefore, knownUsers, knownGroups] = await db.batch([
    // The grants being replaced, for the audit event (same round trip).
    inBatch(grantsOfSource(db), { sourceId: source.id }),
    ...selectPrincipalsOfAccount(db, source.accountId, content),
  ]);
  const known = new Set([...knownUsers.map((u) => `USER:${u.id}`), ...knownGroups.map((g) => `GROUP:${g.id}`)]);
  const problems: Problem[] = content.flatMap((g, i) =>
    known.has(`${g.principalType}:${g.principalId}`)
      ? []
      : [{ name: `body.content[${i}].principalId`, message: `No ${g.principalType.toLowerCase()} with this id in the source's account`, level: "ERROR" as const }],
  );
  if (problems.length > 0) throw new ApiError("VALIDATION_FAILED", "Unknown principals", { problems });
  const sorted = [...content].sort(byGrantee);
  c.get("audit").record({
    accountId: source.accountId,
    action: "source.update",
    target: sourceTarget(source),
    changes: diffMembers({ permissions: [...(grantsBefore as Grant[])].sort(byGrantee) }, { permissions: sorted }),
  });
  // A user or group deleted since the check above: the insert's triggers (migrations 0010, 0016) fail the batch, answered 409.
  await db.batch([inBatch(deleteGrants(db), { sourceId: source.id }), inBatch(insertGrants(db), { sourceId: source.id, accountId: source.accountId, grants: JSON.stringify(content) })]);
  return c.json({ content: sorted }, 200);
};
// The replacement of a source's grants, compiled once per isolate (db/compiled.ts): all of them in one
// statement, bound as one JSON value, so that the SQL is the same whatever their number.
const deleteGrants = compiled((db) => db.delete(sourcePermissions).where(eq(sourcePermissions.sourceId, sql.placeholder("sourceId"))));
const insertGrants = compiled((db) =>
  db
    .insert(sourcePermissions)
    .select(
      sql`SELECT ${sql.placeholder("sourceId")}, ${sql.placeholder("accountId")}, json_extract(value, '$.principalType'), json_extract(value, '$.principalId'), json_extract(value, '$.permission') FROM json_each(${sql.placeholder("grants")})`,
    ),
);

export const getSecurity: AppRouteHandler<typeof routes.getSecurity> = async (c) => {
  const { source } = await loadSource(c.get("db"), c.get("principal"), c.req.valid("param").sourceId, "READ");
  return c.json(securityOf(source), 200);
};

export const putSecurity: AppRouteHandler<typeof routes.putSecurity> = async (c) => {
  const body = c.req.valid("json");
  const db = c.get("db");
  const principal = c.get("principal");
  const { source } = await loadSource(db, principal, c.req.valid("param").sourceId, "WRITE");
  const security = { fieldsSecurityEnabled: body.fieldsSecurity.enabled, customMetricsSecurityEnabled: body.customMetricsSecurity.enabled };
  c.get("audit").recordIf(ROW_CHANGED, {
    accountId: source.accountId,
    action: "source.update",
    target: sourceTarget(source),
    changes: diffMembers(securityOf(source), securityOf({ ...source, ...security })),
  });
  const updated = await updateSecurity(db).get({ ...security, revision: newRevision(), ...auditForUpdate(principal), id: source.id });
  return c.json(securityOf(updated ?? source), 200);
};

// Compiled once per isolate (db/compiled.ts): Drizzle built the update on every request.
const updateSecurity = compiled((db) =>
  db
    .update(sources)
    .set(placeholders("fieldsSecurityEnabled", "customMetricsSecurityEnabled", "revision", "lastModifiedByUserId", "lastModifiedDate"))
    .where(eq(sources.id, sql.placeholder("id")))
    .returning(),
);

export const expressionSyntax: AppRouteHandler<typeof routes.expressionSyntax> = async (c) => {
  await loadSource(c.get("db"), c.get("principal"), c.req.valid("param").sourceId, "READ");
  return catalogue(c, c.get("mediaType") ?? "application/json") as never;
};

// The catalogue is the deployment's: its text and ETag are made once per isolate.
const catalogue = constantAnswer(() => JSON.stringify(expressionSyntaxCatalogue()));
