import { and, asc, eq, inArray, ne, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { splitUtf8 } from "../domain/utf8-chunks";
import { COUNT_LIMIT_GUARD, refuseWhen, WRITE_CONFLICT_GUARD } from "./batch-guards";
import { compiled, inBatch } from "./compiled";
import type { Database } from "./client";
import { quotaGuardStatement } from "./quota";
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

function insertChunks(db: Database, accountId: string, datasetId: string, data: DataVersion) {
  // One chunk per statement: each row, and each statement's bound values, stay under D1's limits.
  return data.chunks.map((chunk, seq) => db.insert(jsonDatasetChunks).values({ datasetId, accountId, version: data.version, seq, data: chunk }));
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
    refuseWhen(db, COUNT_LIMIT_GUARD, sql`(SELECT count(*) FROM json_datasets WHERE json_datasets.account_id = ${dataset.accountId}) >= ${maxPerAccount}`),
    db.insert(jsonDatasets).values(row),
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

function targetCondition({ accountId, id, ifMatch }: WriteTarget): SQL | undefined {
  const revision = Array.isArray(ifMatch) ? inArray(jsonDatasets.revision, ifMatch) : undefined;
  return scoped(jsonDatasets.accountId, inAccount(accountId), eq(jsonDatasets.id, id), revision);
}

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
  const update = db
    .update(jsonDatasets)
    .set({ ...always, ...(description !== undefined && { description }), ...(data && dataColumns(data)) })
    .where(targetCondition(target))
    .returning(summaryColumns);
  // The update above missed (a concurrent writer or delete): refuse, so that nothing before it stays.
  const conflictGuard = refuseWhen(
    db,
    WRITE_CONFLICT_GUARD,
    sql`NOT EXISTS (SELECT 1 FROM json_datasets WHERE json_datasets.id = ${id} AND json_datasets.revision = ${changes.revision})`,
  );
  if (!data) {
    const results = await db.batch([update, conflictGuard, inBatch(currentChunks(db), { accountId, id, unlessRevisionIn: "[]" })]);
    return { dataset: results[0][0]!, chunks: results[2].map((c) => c.data) };
  }
  const statements = replaceDataStatements(db, target, update, conflictGuard, data);
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
  // NULL (no refusal here) when the dataset is gone: the conflict guard answers for that.
  const growth = sql`${data.bytes} - (SELECT json_datasets.data_bytes FROM json_datasets WHERE json_datasets.account_id = ${accountId} AND json_datasets.id = ${id})`;
  // New chunks in, pointer moved, conflict checked, old chunks out: a refusal at any step undoes every step.
  const statements: Batch = [
    quotaGuardStatement(db, accountId, "FILE_SIZE", growth),
    ...insertChunks(db, accountId, id, data),
    update,
    conflictGuard,
    db.delete(jsonDatasetChunks).where(and(eq(jsonDatasetChunks.accountId, accountId), eq(jsonDatasetChunks.datasetId, id), ne(jsonDatasetChunks.version, data.version))),
  ];
  return statements;
}

/** Deletes a dataset and its chunks in one batch, only if the target matches. Answers whether it did. */
export async function deleteDataset(db: Database, target: WriteTarget): Promise<boolean> {
  const matches = targetCondition(target);
  const [, deleted] = await db.batch([
    db
      .delete(jsonDatasetChunks)
      .where(and(eq(jsonDatasetChunks.accountId, target.accountId), eq(jsonDatasetChunks.datasetId, target.id), sql`EXISTS (SELECT 1 FROM ${jsonDatasets} WHERE ${matches})`)),
    db.delete(jsonDatasets).where(matches).returning({ id: jsonDatasets.id }),
  ]);
  return deleted.length > 0;
}
