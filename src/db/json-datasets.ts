import { and, asc, eq, ne, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { splitUtf8 } from "../domain/utf8-chunks";
import { COUNT_LIMIT_GUARD, refuseWhen, WRITE_CONFLICT_GUARD } from "./batch-guards";
import { compiled, compiledByKey, inBatch, placeholders } from "./compiled";
import type { Database } from "./client";
import { quotaGuardAdding, quotaGuardStatement } from "./quota";
import { jsonDatasetChunks, jsonDatasets } from "./schema";
import { scoped } from "./scope";

/**
 * Storage of JSON datasets: the one module that knows how a dataset's data text is kept.
 *
 * The text is stored exactly as sent, cut on character boundaries into chunks of at most
 * CHUNK_MAX_BYTES UTF-8 bytes, one row each (D1 refuses a string or row over 2,000,000 bytes and
 * a statement over 100,000 bytes of SQL; each chunk is a bound parameter, never SQL text). Each
 * write of the data makes a new version: its chunks are inserted, the dataset's `data_version`
 * moves to it and the old version's chunks are deleted, all in one D1 batch (one transaction), so
 * a write that fails anywhere leaves the old version whole and nothing orphaned.
 *
 * Readers: the routes of /api/json-datasets, and (to come) a connector that reads an account's
 * datasets as tables: `listDatasets` and `readDatasetText`.
 */
export const CHUNK_MAX_BYTES = 1_000_000;

export type DatasetRow = typeof jsonDatasets.$inferSelect;

/** What a dataset shows besides its data (the list's items, and the answers' other members). */
const summaryColumns = {
  id: jsonDatasets.id,
  accountId: jsonDatasets.accountId,
  name: jsonDatasets.name,
  description: jsonDatasets.description,
  dataBytes: jsonDatasets.dataBytes,
  chunkCount: jsonDatasets.chunkCount,
  revision: jsonDatasets.revision,
  createdByUserId: jsonDatasets.createdByUserId,
  createdDate: jsonDatasets.createdDate,
  lastModifiedByUserId: jsonDatasets.lastModifiedByUserId,
  lastModifiedDate: jsonDatasets.lastModifiedDate,
};

export type DatasetSummary = { [K in keyof typeof summaryColumns]: DatasetRow[K] };

/** A new version of a dataset's data: its chunks and their total UTF-8 size. */
export interface DataVersion {
  version: string;
  chunks: string[];
  bytes: number;
}

export function newDataVersion(text: string): DataVersion {
  return { version: crypto.randomUUID(), ...splitUtf8(text, CHUNK_MAX_BYTES) };
}

/** An account's scope; a compiled query names its account by placeholder. */
const inAccount = (accountId: string | Placeholder) => ({ kind: "account" as const, accountId });

// ---------------------------------------------------------------- reads

/** The summaries of an account's datasets matching `condition`, for paging (batchable). */
export function selectDatasetSummaries(db: Database, accountId: string | Placeholder, condition?: SQL) {
  return db.select(summaryColumns).from(jsonDatasets).where(scoped(jsonDatasets.accountId, inAccount(accountId), condition));
}

/** Every dataset of an account, by name (an account holds at most MAX_DATASETS_PER_ACCOUNT). */
export async function listDatasets(db: Database, accountId: string): Promise<DatasetSummary[]> {
  return selectDatasetSummaries(db, accountId).orderBy(asc(jsonDatasets.name)).all();
}

// One dataset and its current chunks, compiled once per isolate (db/compiled.ts): a dataset's GET
// runs them on every request. `unlessRevisionIn` is a JSON array of revisions (one bound value
// however many tags the client sent); when the dataset's revision is one of them no chunk is read:
// a client that already holds it gets a 304, and the data is not even read.
const datasetSummaryById = compiled((db) => selectDatasetSummaries(db, sql.placeholder("accountId"), eq(jsonDatasets.id, sql.placeholder("id"))).limit(1));
const currentChunks = compiled((db) =>
  db
    .select({ data: jsonDatasetChunks.data })
    .from(jsonDatasetChunks)
    .innerJoin(
      jsonDatasets,
      and(
        eq(jsonDatasets.accountId, jsonDatasetChunks.accountId),
        eq(jsonDatasets.id, jsonDatasetChunks.datasetId),
        eq(jsonDatasets.dataVersion, jsonDatasetChunks.version),
      ),
    )
    .where(
      scoped(
        jsonDatasets.accountId,
        inAccount(sql.placeholder("accountId")),
        eq(jsonDatasets.id, sql.placeholder("id")),
        sql`${jsonDatasets.revision} NOT IN (SELECT value FROM json_each(${sql.placeholder("unlessRevisionIn")}))`,
      ),
    )
    .orderBy(asc(jsonDatasetChunks.seq)),
);

export interface StoredDataset {
  dataset: DatasetSummary;
  /** The data text in pieces (join them for the whole); empty when skipped by `unlessRevisionIn`. */
  chunks: string[];
}

/** One dataset of the account with its data, in one round trip; undefined when the account has no such dataset. */
export async function readDataset(
  db: Database,
  accountId: string,
  id: string,
  options: { unlessRevisionIn?: string[] | "*" } = {},
): Promise<StoredDataset | undefined> {
  const skip = options.unlessRevisionIn;
  if (skip === "*") {
    const [dataset] = await datasetSummaryById(db).all({ accountId, id });
    return dataset && { dataset, chunks: [] };
  }
  const [[dataset], chunks] = await db.batch([
    inBatch(datasetSummaryById(db), { accountId, id }),
    inBatch(currentChunks(db), { accountId, id, unlessRevisionIn: JSON.stringify(skip ?? []) }),
  ]);
  if (!dataset) return undefined;
  const stored = { dataset, chunks: chunks.map((c) => c.data) };
  if (!skip?.includes(dataset.revision)) assertWhole(stored);
  return stored;
}

/** One dataset's data text, whole (for readers that parse it); undefined when the account has no such dataset. */
export async function readDatasetText(db: Database, accountId: string, id: string): Promise<string | undefined> {
  return (await readDataset(db, accountId, id))?.chunks.join("");
}

/** All the chunks the dataset records were read: anything else is a storage fault (a 500), never a partial answer. */
function assertWhole({ dataset, chunks }: StoredDataset): void {
  if (chunks.length !== dataset.chunkCount) {
    throw new Error(`JSON dataset ${dataset.id}: ${chunks.length} chunks of its data found, ${dataset.chunkCount} expected`);
  }
}

// ---------------------------------------------------------------- writes

// The statements of a dataset's writes, compiled once per isolate (db/compiled.ts), not built by
// Drizzle on every write. A write's target names its revisions (If-Match) as one JSON array, or null
// for any, so its SQL text is the same however many the client sent.
const ph = (name: string) => sql.placeholder(name);
const insertChunk = compiled((db) => db.insert(jsonDatasetChunks).values(placeholders("datasetId", "accountId", "version", "seq", "data")));
const countLimitGuard = compiled((db) =>
  refuseWhen(db, COUNT_LIMIT_GUARD, sql`(SELECT count(*) FROM json_datasets WHERE json_datasets.account_id = ${ph("accountId")}) >= ${ph("maxPerAccount")}`),
);
const insertDataset = compiled((db) =>
  db
    .insert(jsonDatasets)
    .values(placeholders("id", "accountId", "name", "description", "dataVersion", "dataBytes", "chunkCount", "revision", "createdByUserId", "createdDate", "lastModifiedByUserId", "lastModifiedDate")),
);
const conflictGuard = compiled((db) =>
  refuseWhen(db, WRITE_CONFLICT_GUARD, sql`NOT EXISTS (SELECT 1 FROM json_datasets WHERE json_datasets.id = ${ph("id")} AND json_datasets.revision = ${ph("revision")})`),
);
/** An update for each set of members it sets (description kept or set, data kept or replaced). */
const updateTarget = compiledByKey(
  (db, members: (keyof DatasetRow)[]) => db.update(jsonDatasets).set(placeholders(...members)).where(targetCondition()).returning(summaryColumns),
  (members) => members.join(),
);
// NULL (no refusal) when the dataset is gone: the write's conflict guard answers for that.
const growthQuotaGuard = quotaGuardAdding(
  "FILE_SIZE",
  sql`${ph("bytes")} - (SELECT json_datasets.data_bytes FROM json_datasets WHERE json_datasets.account_id = ${ph("accountId")} AND json_datasets.id = ${ph("id")})`,
);
const deleteOldChunks = compiled((db) =>
  db
    .delete(jsonDatasetChunks)
    .where(and(eq(jsonDatasetChunks.accountId, ph("accountId")), eq(jsonDatasetChunks.datasetId, ph("id")), ne(jsonDatasetChunks.version, ph("version")))),
);
const deleteTargetChunks = compiled((db) =>
  db
    .delete(jsonDatasetChunks)
    .where(and(eq(jsonDatasetChunks.accountId, ph("accountId")), eq(jsonDatasetChunks.datasetId, ph("id")), sql`EXISTS (SELECT 1 FROM ${jsonDatasets} WHERE ${targetCondition()})`)),
);
const deleteTarget = compiled((db) => db.delete(jsonDatasets).where(targetCondition()).returning({ id: jsonDatasets.id }));

function insertChunks(db: Database, accountId: string, datasetId: string, data: DataVersion) {
  // One chunk per statement: each row, and each statement's bound values, stay under D1's limits.
  return data.chunks.map((chunk, seq) => inBatch(insertChunk(db), { datasetId, accountId, version: data.version, seq, data: chunk }));
}

type Batch = [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];

type NewDataset = Omit<DatasetRow, "dataVersion" | "dataBytes" | "chunkCount">;

const dataColumns = (data: DataVersion) => ({ dataVersion: data.version, dataBytes: data.bytes, chunkCount: data.chunks.length });

/**
 * Creates a dataset in one batch. Refusals fail the whole batch: the FILE_SIZE quota
 * (QUOTA_GUARD), the account's dataset limit (COUNT_LIMIT_GUARD), the name taken (UNIQUE).
 */
export async function createDataset(db: Database, dataset: NewDataset, data: DataVersion, maxPerAccount: number): Promise<DatasetSummary> {
  const { row, statements } = createDatasetStatements(db, dataset, data, maxPerAccount);
  await db.batch(statements);
  return row;
}

/** The statements of createDataset, for a caller that puts them in a larger batch (an account import). */
export function createDatasetStatements(db: Database, dataset: NewDataset, data: DataVersion, maxPerAccount: number) {
  const row: DatasetRow = { ...dataset, ...dataColumns(data) };
  const statements: Batch = [
    quotaGuardStatement(db, dataset.accountId, "FILE_SIZE", data.bytes),
    inBatch(countLimitGuard(db), { accountId: dataset.accountId, maxPerAccount }),
    inBatch(insertDataset(db), row),
    ...insertChunks(db, dataset.accountId, dataset.id, data),
  ];
  return { row, statements };
}

export interface DatasetChanges {
  name: string;
  /** undefined keeps the stored description. */
  description: string | null | undefined;
  revision: string;
  lastModifiedByUserId: string;
  lastModifiedDate: string;
}

/** Which dataset a write applies to: with `ifMatch` (If-Match), only while its revision is one of those ("*": any). */
export interface WriteTarget {
  accountId: string;
  id: string;
  ifMatch?: string[] | "*";
}

/** A write's target, its values placeholders: see targetValues. */
function targetCondition(): SQL | undefined {
  const revision = sql`(${ph("ifMatch")} IS NULL OR ${jsonDatasets.revision} IN (SELECT value FROM json_each(${ph("ifMatch")})))`;
  return scoped(jsonDatasets.accountId, inAccount(ph("accountId")), eq(jsonDatasets.id, ph("id")), revision);
}

const targetValues = ({ accountId, id, ifMatch }: WriteTarget) => ({ accountId, id, ifMatch: Array.isArray(ifMatch) ? JSON.stringify(ifMatch) : null });

/**
 * Updates a dataset in one batch, without reading it first; `data` undefined keeps the stored
 * data. The batch fails, changing nothing, when: the FILE_SIZE quota would be passed by the growth
 * (QUOTA_GUARD; an update that does not grow always passes), the name is taken (UNIQUE), or the
 * target is missing or has another revision (WRITE_CONFLICT_GUARD, or a FOREIGN KEY failure of the
 * new chunks when the dataset does not exist in the account). Answers the dataset as stored, with its data.
 */
export async function updateDataset(db: Database, target: WriteTarget, changes: DatasetChanges, data: DataVersion | undefined): Promise<StoredDataset> {
  const { accountId, id } = target;
  const { description, ...always } = changes;
  const set = { ...always, ...(description !== undefined && { description }), ...(data && dataColumns(data)) };
  const update = inBatch(updateTarget(db, Object.keys(set) as (keyof DatasetRow)[]), { ...set, ...targetValues(target) });
  // The update above missed (a concurrent writer or delete): refuse, so that nothing before it stays.
  const guard = inBatch(conflictGuard(db), { id, revision: changes.revision });
  if (!data) {
    const results = await db.batch([update, guard, inBatch(currentChunks(db), { accountId, id, unlessRevisionIn: "[]" })]);
    return { dataset: results[0][0]!, chunks: results[2].map((c) => c.data) };
  }
  const statements = replaceDataStatements(db, target, update, guard, data);
  const results = (await db.batch(statements)) as unknown[];
  const [dataset] = results[statements.indexOf(update)] as DatasetSummary[];
  return { dataset: dataset!, chunks: data.chunks };
}

/**
 * The statements that give a dataset new data around `update` (which moves its pointer) and
 * `conflictGuard` (which refuses a missed update): for updateDataset, and for an account import.
 */
export function replaceDataStatements(db: Database, target: WriteTarget, update: BatchItem<"sqlite">, conflictGuard: BatchItem<"sqlite">, data: DataVersion): Batch {
  const { accountId, id } = target;
  // New chunks in, pointer moved, conflict checked, old chunks out: a refusal at any step undoes every step.
  const statements: Batch = [
    inBatch(growthQuotaGuard(db), { accountId, id, bytes: data.bytes }),
    ...insertChunks(db, accountId, id, data),
    update,
    conflictGuard,
    inBatch(deleteOldChunks(db), { accountId, id, version: data.version }),
  ];
  return statements;
}

/** Deletes a dataset and its chunks in one batch, only if the target matches. Answers whether it did. */
export async function deleteDataset(db: Database, target: WriteTarget): Promise<boolean> {
  const values = targetValues(target);
  const [, deleted] = await db.batch([inBatch(deleteTargetChunks(db), values), inBatch(deleteTarget(db), values)]);
  return deleted.length > 0;
}
