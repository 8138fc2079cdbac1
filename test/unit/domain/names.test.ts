import unhomoglyph from "unhomoglyph";
import fullTable from "unhomoglyph/data.json";
import { describe, expect, it } from "vitest";
import { nameRefusal, nameSkeleton, namesLookAlike } from "../../../src/domain/names";
import { isSupervisorName } from "../../../src/domain/usernames";

describe("nameRefusal", () => {
  it("accepts ordinary names in any script", () => {
    for (const name of ["Analysts", "Sales EMEA", "Ventes été", "Продажи", "販売", "a"]) expect(nameRefusal(name)).toBeUndefined();
  });

  it("refuses leading and trailing whitespace of any kind", () => {
    for (const name of [" Europe", "Europe ", "Europe\u00A0", "\u3000Europe", "Europe\u2003"]) expect(nameRefusal(name)).toMatch(/whitespace/);
  });

  it("refuses bidirectional controls", () => {
    for (const c of ["\u202A", "\u202B", "\u202C", "\u202D", "\u202E", "\u2066", "\u2067", "\u2068", "\u2069", "\u200F"]) {
      expect(nameRefusal(`abc${c}def`)).toMatch(/bidirectional/);
    }
  });

  it("refuses zero-width characters", () => {
    for (const c of ["\u200B", "\u200C", "\u200D", "\u2060", "\uFEFF"]) expect(nameRefusal(`super${c}visor`)).toMatch(/zero-width/);
  });
});

describe("nameSkeleton (NFKC, invisible characters dropped, trimmed, case-folded, TS #39 skeleton)", () => {
  it("gives look-alikes one skeleton", () => {
    const spellings = ["supervisor", "Supervisor", "SUPERVISOR", "ＳＵＰＥＲＶＩＳＯＲ", "supervisor ", " supervisor", "supervisor\u00A0", "super\u200Bvisor", "\uFEFFsupervisor", "ѕupervisor", "supervіsor", "ѕuреrvіѕоr"];
    for (const spelling of spellings) expect(nameSkeleton(spelling), JSON.stringify(spelling)).toBe(nameSkeleton("supervisor"));
  });

  it("keeps different names apart", () => {
    for (const other of ["supervisors", "super visor", "supervisor2", "visor", "alice"]) expect(namesLookAlike(other, "supervisor"), other).toBe(false);
  });

  it("maps digits that imitate letters to them (confusables.txt)", () => {
    expect(namesLookAlike("b0b", "bob")).toBe(true);
  });
});

describe("isSupervisorName", () => {
  it("matches the configured name by skeleton, and nothing when none is configured", () => {
    expect(isSupervisorName("ѕupervisor", "supervisor")).toBe(true);
    expect(isSupervisorName("root\u2060", "Root")).toBe(true);
    expect(isSupervisorName("alice", "supervisor")).toBe(false);
    expect(isSupervisorName("supervisor", undefined)).toBe(false);
  });
});

describe("the confusables table (src/domain/confusables.ts, the part of unhomoglyph's nameSkeleton can meet)", () => {
  /** nameSkeleton as it was, over unhomoglyph's whole table. */
  const withFullTable = (name: string) => {
    const folded = name.normalize("NFKC").replace(/\p{Default_Ignorable_Code_Point}/gu, "").trim().toLowerCase().normalize("NFKC");
    return unhomoglyph(folded.normalize("NFD")).normalize("NFD").toLowerCase();
  };

  it("gives every name made of the full table's characters the skeleton the full table gives", () => {
    const sources = Object.keys(fullTable);
    const differing = sources.filter((c) => nameSkeleton(`a${c}b`) !== withFullTable(`a${c}b`));
    expect(differing).toEqual([]);
    // Every code point, including those that fold into a table's character (U+1D35 ᴵ folds to I).
    const differingCodePoints: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const name = `a${String.fromCodePoint(cp)}b`;
      if (nameSkeleton(name) !== withFullTable(name)) differingCodePoints.push(`U+${cp.toString(16).toUpperCase()}`);
    }
    expect(differingCodePoints).toEqual([]);
    // And longer names mixing them, with capitals, fullwidth and combining marks.
    for (let i = 0; i < sources.length; i += 7) {
      const name = `S${sources[i]}ｕ${sources[(i * 13) % sources.length]}e\u0301${sources[(i * 31) % sources.length]}R`;
      expect(nameSkeleton(name)).toBe(withFullTable(name));
    }
  });
});

describe("nameSkeleton keeps the skeletons of names met lately", () => {
  it("answers the same skeleton for a name asked again, before and after more names than it keeps", () => {
    const names = Array.from({ length: 3000 }, (_, i) => `ЅUPER-${i}\u200B`);
    const firstTime = names.map(nameSkeleton);
    expect(new Set(firstTime).size).toBe(names.length);
    expect(names.map(nameSkeleton)).toEqual(firstTime);
    expect(nameSkeleton("ЅUPERVISOR\u200B")).toBe(nameSkeleton("supervisor"));
  });
});
