/**
 * Which D1 bindings hold what (issue 21, docs/sharding.md): `DIRECTORY` names the directory's
 * binding, `SHARDS` the shards' (comma-separated, in placement order). One database may play both
 * roles: the default, `DIRECTORY = "DB"` and `SHARDS = "DB"`, is the service on one database, where
 * the directory's handle and the shard's are one and the same and nothing is routed.
 */
export interface ShardConfig {
  directory: string;
  shards: readonly string[];
  /** One database in both roles: every request's directory and shard handles are the same. */
  single: boolean;
}

const BINDING = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Parses DIRECTORY and SHARDS; a name that is not a binding name, or a repeated shard, is a deployment error. */
export function parseShardConfig(directory: string | undefined, shards: string | undefined): ShardConfig {
  const dir = directory?.trim() || "DB";
  const list = (shards ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const names = list.length > 0 ? list : [dir];
  for (const name of [dir, ...names]) if (!BINDING.test(name)) throw new Error(`DIRECTORY/SHARDS: '${name}' is not a binding name`);
  if (new Set(names).size !== names.length) throw new Error("SHARDS names a binding twice");
  return { directory: dir, shards: names, single: names.length === 1 && names[0] === dir };
}

/**
 * The binding that holds an account's rows: `accounts.shard` in the directory, where NULL is the
 * directory's own database (every account created before sharding lives there).
 */
export const shardOfRow = (config: ShardConfig, shard: string | null | undefined): string => shard ?? config.directory;
