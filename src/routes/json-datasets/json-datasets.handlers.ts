import { ROW_CHANGED } from "../../db/audit-trail";
import { dataSummary } from "../../domain/audit/changes";
import type { Context } from "hono";
import { sql } from "drizzle-orm";
import { compiled } from "../../db/compiled";
import { COUNT_LIMIT_GUARD, refusedBy, WRITE_CONFLICT_GUARD } from "../../db/batch-guards";
import { createDataset, deleteDataset, newDataVersion, readDataset, selectDatasetSummaries, updateDataset, type DataVersion, type DatasetSummary } from "../../db/json-datasets";
import { rethrowQuotaExceeded } from "../../db/quota";
import { jsonDatasets } from "../../db/schema";
import { placedForWrite, scopeOf } from "../../db/scope";
import { rawMemberText } from "../../domain/raw-json";
import type { Principal } from "../../domain/principal";
import type { AppRouteHandler } from "../../lib/create-router";
import { ApiError, duplicated, isConstraintError, notFound } from "../../lib/errors";
import { assertSameId, ifMatchOf, auditForCreate, auditForUpdate, ifMatchRevisions, keysetPlan, locationOf, newRevision, perPageShape, revisionsNamedBy } from "../../lib/http";
import type { AppEnv } from "../../lib/types";
import { ifNoneMatchTags } from "../../middleware/conditional-get";
import { datasetResponse, notModified, toDatasetSummary } from "./json-datasets.response";
import { mergePatchHandler } from "../../lib/merge-patch-route";
import * as routes from "./json-datasets.routes";

/** The caller's account. Every route here admits users of an account only (the supervisor belongs to none). */
function accountOf(principal: Principal): string {
  const scope = scopeOf(principal);
  if (scope.kind !== "account") throw new Error("JSON dataset routes must admit users of an account only");
  return scope.accountId;
}

/**
 * The `data` of the request exactly as sent (the raw text of the body's top-level member, not the
 * parsed value, which would lose number spellings), cut into chunks; undefined when absent.
 */
function submittedData(c: Context<AppEnv>): DataVersion | undefined {
  const body = c.get("rawJsonBody");
  if (body === undefined) throw new Error("The JSON body was not read by readJsonBody");
  const text = rawMemberText(body, "data");
  if (text === undefined) return undefined;
  const data = newDataVersion(text);
  const max = c.get("config").maxDatasetBytes;
  if (data.bytes > max) throw new ApiError("PAYLOAD_TOO_LARGE", `data is ${data.bytes} bytes of JSON; a dataset holds at most ${max}`);
  return data;
}

/** Refusals of a create or update batch, as the API answers them. */
async function rethrowRefusal(c: Context<AppEnv>, err: unknown, accountId: string, name: string): Promise<never> {
  await rethrowQuotaExceeded(c.get("db"), err, accountId, "FILE_SIZE");
  if (refusedBy(err, COUNT_LIMIT_GUARD)) {
    throw new ApiError("DATASET_LIMIT", `The account already has ${c.get("config").maxDatasetsPerAccount} JSON datasets, the most it may have`);
  }
  if (isConstraintError(err, "UNIQUE")) throw duplicated(`A JSON dataset named '${name}' already exists in the account`);
  if (refusedBy(err, WRITE_CONFLICT_GUARD) || isConstraintError(err, "FOREIGN KEY")) throw missingOrChanged(c);
  throw err;
}

/** A write found no dataset to apply to: 412 if it named a revision (If-Match), else 404 (another account's is missing too). */
function missingOrChanged(c: Context<AppEnv>): ApiError {
  return ifMatchOf(c)
    ? new ApiError("PRECONDITION_FAILED", "If-Match names no current revision of this dataset (changed or deleted); reload it and retry")
    : notFound("JSON dataset");
}

// An account's datasets, by name, compiled once per isolate for each page shape (db/compiled.ts).
const datasetsPage = perPageShape(jsonDatasets.name, (page) =>
  compiled((db) => selectDatasetSummaries(db, sql.placeholder("accountId"), page.keyCondition).orderBy(page.orderBy).limit(page.limit)),
);

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const query = c.req.valid("query");
  const db = c.get("db");
  const accountId = accountOf(c.get("principal"));
  const plan = await keysetPlan(c, { list: "json-datasets", account: accountId }, jsonDatasets.name, (r: DatasetSummary) => r.name, query);
  const page = await plan.toPage(await datasetsPage[plan.shape](db).all({ ...plan.pageValues, accountId }));
  return c.json({ content: page.content.map(toDatasetSummary), pageInfo: page.pageInfo }, 200);
};

export const create: AppRouteHandler<typeof routes.create> = async (c) => {
  const body = c.req.valid("json");
  const principal = c.get("principal");
  const accountId = await placedForWrite(c, body.accountId);
  // The schema requires `data`, so it is there.
  const data = submittedData(c)!;
  const dataset = {
    id: crypto.randomUUID(),
    accountId,
    name: body.name,
    description: body.description ?? null,
    revision: newRevision(),
    ...auditForCreate(principal),
  };
  c.get("audit").record({ accountId, action: "json-dataset.create", target: { type: "json-dataset", id: dataset.id, name: body.name } });
  let created: DatasetSummary;
  try {
    created = await createDataset(c.get("db"), dataset, data, c.get("config").maxDatasetsPerAccount);
  } catch (err) {
    return rethrowRefusal(c, err, accountId, body.name);
  }
  c.header("Location", locationOf(c, dataset.id));
  return datasetResponse(c, 201, created, data.chunks);
};

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const { id } = c.req.valid("param");
  // Clients poll datasets: when If-None-Match names the current revision, the data is not even read.
  const ifNoneMatch = c.req.header("If-None-Match");
  const tags = ifNoneMatch ? ifNoneMatchTags(ifNoneMatch) : [];
  const unchanged = tags === "*" ? "*" : revisionsNamedBy(tags);
  const stored = await readDataset(c.get("db"), accountOf(c.get("principal")), id, { unlessRevisionIn: unchanged });
  if (!stored) throw notFound("JSON dataset");
  if (unchanged === "*" || unchanged.includes(stored.dataset.revision)) return notModified(c, stored.dataset.revision);
  return datasetResponse(c, 200, stored.dataset, stored.chunks);
};

export const update: AppRouteHandler<typeof routes.update> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  assertSameId(body.id, id);
  const principal = c.get("principal");
  // A dataset stays in its account: naming another is refused like any write into another account.
  const accountId = await placedForWrite(c, body.accountId);
  const data = submittedData(c);
  const changes = { name: body.name, description: body.description, revision: newRevision(), ...auditForUpdate(principal) };
  // The update is written without reading the dataset first: its event lists what the request set, with the new values.
  c.get("audit").record({
    accountId,
    action: "json-dataset.update",
    target: { type: "json-dataset", id, name: body.name },
    changes: [
      { member: "name", after: body.name },
      ...(body.description !== undefined ? [{ member: "description", after: body.description }] : []),
      ...(data ? [{ member: "data", after: await dataSummary(data.chunks.join("")) }] : []),
    ],
  });
  let stored;
  try {
    stored = await updateDataset(c.get("db"), { accountId, id, ifMatch: ifMatchRevisions(c) }, changes, data);
  } catch (err) {
    return rethrowRefusal(c, err, accountId, body.name);
  }
  return datasetResponse(c, 200, stored.dataset, stored.chunks);
};

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const { id } = c.req.valid("param");
  const accountId = accountOf(c.get("principal"));
  c.get("audit").recordIf(ROW_CHANGED, { accountId, action: "json-dataset.delete", target: { type: "json-dataset", id, name: null } });
  const deleted = await deleteDataset(c.get("db"), { accountId: accountOf(c.get("principal")), id, ifMatch: ifMatchRevisions(c) });
  if (!deleted) throw missingOrChanged(c);
  return c.body(null, 204);
};

/** JSON Merge Patch: the PUT applied to the object as read with the patch merged in (src/lib/merge-patch-route.ts). */
export const patch = mergePatchHandler({ read: getOne, put: routes.update, write: update, keptWhenOmitted: ["data"] }) as unknown as AppRouteHandler<typeof routes.patch>;
