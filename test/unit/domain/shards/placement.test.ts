import { describe, expect, it } from "vitest";
import { bytesSpread, chooseShard, planRebalance, type ShardContents } from "../../../../src/domain/shards/placement";

const accounts = (prefix: string, ...sizes: number[]) => sizes.map((bytes, i) => ({ id: `${prefix}${i}`, bytes }));
const totals = (shards: ShardContents[], moves: ReturnType<typeof planRebalance>) => {
  const bytes = new Map(shards.map((s) => [s.name, s.accounts.reduce((sum, a) => sum + a.bytes, 0)]));
  for (const m of moves) {
    bytes.set(m.from, bytes.get(m.from)! - m.bytes);
    bytes.set(m.to, bytes.get(m.to)! + m.bytes);
  }
  return [...bytes.values()];
};

describe("placing a new account", () => {
  it("picks the shard with the fewest accounts", () => {
    expect(chooseShard([{ name: "A", accounts: 3 }, { name: "B", accounts: 1 }, { name: "C", accounts: 2 }])).toBe("B");
  });

  it("breaks a tie by the order of configuration", () => {
    expect(chooseShard([{ name: "C", accounts: 1 }, { name: "A", accounts: 0 }, { name: "B", accounts: 0 }])).toBe("A");
    expect(chooseShard([{ name: "only", accounts: 9 }])).toBe("only");
  });

  it("fills shards evenly, one account after another", () => {
    const shards = ["A", "B", "C"].map((name) => ({ name, accounts: 0 }));
    const order = Array.from({ length: 7 }, () => {
      const name = chooseShard(shards);
      shards.find((s) => s.name === name)!.accounts++;
      return name;
    });
    expect(order).toEqual(["A", "B", "C", "A", "B", "C", "A"]);
  });

  it("refuses an empty configuration", () => {
    expect(() => chooseShard([])).toThrow(/No shard/);
  });
});

describe("planning a rebalance", () => {
  it("measures the spread against the mean", () => {
    expect(bytesSpread([100, 100])).toBe(0);
    expect(bytesSpread([150, 50])).toBe(1);
    expect(bytesSpread([0, 0])).toBe(0);
  });

  it("moves nothing when the shards are already even enough", () => {
    const shards = [{ name: "A", accounts: accounts("a", 100, 5) }, { name: "B", accounts: accounts("b", 100) }];
    expect(planRebalance(shards, 0.1)).toEqual([]);
  });

  it("moves from the fullest to the emptiest until the spread is under the threshold", () => {
    const shards = [
      { name: "A", accounts: accounts("a", 500, 300, 200, 100, 50) },
      { name: "B", accounts: accounts("b", 100) },
      { name: "C", accounts: accounts("c", 200, 100) },
    ];
    const moves = planRebalance(shards, 0.1);
    // A holds 1150, B 100: the largest account under half the gap (525) goes first.
    expect(moves[0]).toEqual({ accountId: "a0", from: "A", to: "B", bytes: 500 });
    for (const m of moves) expect(m.from).not.toBe(m.to);
    expect(bytesSpread(totals(shards, moves))).toBeLessThanOrEqual(0.1);
  });

  it("never moves an account that would make the emptiest the fullest, and stops when nothing helps", () => {
    // One huge account: moving it only swaps the roles of the two shards.
    const shards = [{ name: "A", accounts: accounts("a", 1000) }, { name: "B", accounts: accounts("b", 10) }];
    expect(planRebalance(shards, 0.1)).toEqual([]);
  });

  it("is deterministic and leaves its input alone", () => {
    const shards = [{ name: "A", accounts: accounts("a", 40, 40, 40, 40) }, { name: "B", accounts: [] }];
    const first = planRebalance(shards, 0);
    expect(first).toEqual(planRebalance(shards, 0));
    expect(first.map((m) => m.accountId)).toEqual(["a0", "a1"]);
    expect(shards[0]!.accounts).toHaveLength(4);
    expect(totals(shards, first)).toEqual([80, 80]);
  });
});
