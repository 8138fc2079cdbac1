/**
 * Where accounts live when they are spread over several databases ("shards", issue 21): the
 * placement of a new account and the moves that would even the shards out. Pure: callers pass the
 * directory's counts and the shards' measured sizes.
 */

/** A shard as placement sees it: its binding name and how many accounts the directory places on it. */
export interface ShardLoad {
  name: string;
  accounts: number;
}

/**
 * The shard for a new account: the one with the fewest accounts, the first in configuration order
 * on a tie. The count, not the data, because the count is known when an account is created and
 * costs the directory one integer per shard to keep, while how big an account will grow is not
 * known then (a new account holds nothing). Data skew is corrected afterwards by moves (planRebalance).
 */
export function chooseShard(shards: readonly ShardLoad[]): string {
  let best = shards[0];
  if (!best) throw new Error("No shard is configured");
  for (const shard of shards) if (shard.accounts < best.accounts) best = shard;
  return best.name;
}

export interface ShardContents {
  name: string;
  /** Each account on the shard and the bytes its rows take (table and index pages). */
  accounts: readonly { id: string; bytes: number }[];
}

export interface Move {
  accountId: string;
  from: string;
  to: string;
  bytes: number;
}

/** (largest − smallest) / mean of the shards' bytes: 0 when even; 0.1 means the extremes are 10 % of a mean shard apart. */
export function bytesSpread(totals: readonly number[]): number {
  const mean = totals.reduce((a, b) => a + b, 0) / totals.length;
  return mean === 0 ? 0 : (Math.max(...totals) - Math.min(...totals)) / mean;
}

/**
 * Moves that even out the shards' bytes: while the spread (bytesSpread) is over `maxSpread`, move
 * from the fullest shard to the emptiest the account closest to half their difference without
 * passing it, so that a move never swaps which of the two is fuller. Each move strictly lowers the
 * variance of the totals, so the plan ends; it stops early when no account of the fullest shard
 * is small enough to help. Accounts are considered in the order given on a tie: deterministic.
 */
export function planRebalance(shards: readonly ShardContents[], maxSpread = 0.1): Move[] {
  const state = shards.map((s) => ({ name: s.name, accounts: [...s.accounts], bytes: s.accounts.reduce((sum, a) => sum + a.bytes, 0) }));
  const moves: Move[] = [];
  while (state.length > 1 && bytesSpread(state.map((s) => s.bytes)) > maxSpread) {
    const fullest = state.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    const emptiest = state.reduce((a, b) => (b.bytes < a.bytes ? b : a));
    const half = (fullest.bytes - emptiest.bytes) / 2;
    let pick = -1;
    fullest.accounts.forEach((a, i) => {
      if (a.bytes > 0 && a.bytes <= half && (pick < 0 || a.bytes > fullest.accounts[pick]!.bytes)) pick = i;
    });
    if (pick < 0) break;
    const [account] = fullest.accounts.splice(pick, 1);
    emptiest.accounts.push(account!);
    fullest.bytes -= account!.bytes;
    emptiest.bytes += account!.bytes;
    moves.push({ accountId: account!.id, from: fullest.name, to: emptiest.name, bytes: account!.bytes });
  }
  return moves;
}
