import { describe, expect, it } from "vitest";
import {
  chainInPathOrder,
  childFolderPath,
  depthOfFolderPath,
  folderPathOf,
  idsInFolderPath,
  isInSubtree,
  isWellFormedFolderPath,
  MAX_FOLDER_DEPTH,
  moveRefusal,
  newFolderRefusal,
  pathAfterMove,
  rootFolderPath,
  subtreeHeight,
  visibleBreadcrumb,
} from "../../../src/domain/folders";

describe("materialized paths", () => {
  it("name the ids from the root down to the folder itself", () => {
    expect(rootFolderPath("r")).toBe("/r/");
    expect(childFolderPath("/r/", "a")).toBe("/r/a/");
    expect(folderPathOf(["r", "a", "b"])).toBe("/r/a/b/");
    expect(idsInFolderPath("/r/a/b/")).toEqual(["r", "a", "b"]);
  });

  it("give the depth: number of ids - 1", () => {
    expect(depthOfFolderPath("/r/")).toBe(0);
    expect(depthOfFolderPath("/r/a/b/")).toBe(2);
  });

  it("refuse malformed paths and ids that cannot appear in one", () => {
    for (const bad of ["", "/", "//", "r/", "/r", "/r//a/", "r"]) {
      expect(isWellFormedFolderPath(bad)).toBe(false);
      expect(() => idsInFolderPath(bad)).toThrow();
    }
    expect(() => folderPathOf([])).toThrow();
    expect(() => folderPathOf(["a/b"])).toThrow();
    expect(() => folderPathOf([""])).toThrow();
  });

  it("make subtree membership a prefix test that does not confuse /1/ with /12/", () => {
    expect(isInSubtree("/1/", "/1/")).toBe(true);
    expect(isInSubtree("/1/2/3/", "/1/2/")).toBe(true);
    expect(isInSubtree("/12/", "/1/")).toBe(false);
    expect(isInSubtree("/1/23/", "/1/2/")).toBe(false);
    expect(isInSubtree("/1/", "/1/2/")).toBe(false);
  });

  it("measure the height of a subtree, ignoring paths outside it", () => {
    const paths = ["/r/", "/r/a/", "/r/a/b/", "/r/a/b/c/", "/r/ab/x/y/z/w/"];
    expect(subtreeHeight("/r/a/", paths)).toBe(2);
    expect(subtreeHeight("/r/a/b/c/", paths)).toBe(0);
    expect(subtreeHeight("/r/", paths)).toBe(5);
  });

  it("put loaded rows in chain order, or say the chain is incomplete", () => {
    const rows = [{ id: "b" }, { id: "r" }, { id: "a" }, { id: "unrelated" }];
    expect(chainInPathOrder("/r/a/b/", rows)?.map((row) => row.id)).toEqual(["r", "a", "b"]);
    expect(chainInPathOrder("/r/a/b/", [{ id: "r" }, { id: "b" }])).toBeNull();
  });

  it("place chains among rows already indexed by id, as when many chains share one load", () => {
    const indexed = new Map(["b", "r", "a", "x"].map((id) => [id, { id }]));
    expect(chainInPathOrder("/r/a/b/", indexed)?.map((row) => row.id)).toEqual(["r", "a", "b"]);
    expect(chainInPathOrder("/r/x/", indexed)?.map((row) => row.id)).toEqual(["r", "x"]);
    expect(chainInPathOrder("/r/missing/", indexed)).toBeNull();
  });
});

describe("moves", () => {
  // r ── a ── b ── c        other-root ── x
  //  └── d
  const tree = { r: "/r/", a: "/r/a/", b: "/r/a/b/", c: "/r/a/b/c/", d: "/r/d/", other: "/other/", x: "/other/x/" };
  const moved = (id: keyof typeof tree, height: number, projectId = "P") => ({ id, path: tree[id], projectId, subtreeHeight: height });
  const parent = (id: keyof typeof tree, projectId = "P") => ({ id, path: tree[id], projectId });

  it("rewrite the path prefix of every folder of the moved subtree", () => {
    // a moves under d: a, b and c follow it.
    expect(pathAfterMove("/r/a/", "/r/a/", "/r/d/")).toBe("/r/d/a/");
    expect(pathAfterMove("/r/a/b/", "/r/a/", "/r/d/")).toBe("/r/d/a/b/");
    expect(pathAfterMove("/r/a/b/c/", "/r/a/", "/r/d/")).toBe("/r/d/a/b/c/");
    // b moves up under r.
    expect(pathAfterMove("/r/a/b/c/", "/r/a/b/", "/r/")).toBe("/r/b/c/");
    expect(() => pathAfterMove("/r/d/", "/r/a/", "/r/")).toThrow();
    expect(() => pathAfterMove("/r/ab/", "/r/a/", "/r/d/")).toThrow();
  });

  it("accept a move within the project that stays within the depth", () => {
    expect(moveRefusal(moved("a", 2), parent("d"))).toBeNull();
    expect(moveRefusal(moved("c", 0), parent("r"))).toBeNull();
    expect(moveRefusal(moved("d", 0), parent("r"))).toBeNull(); // where it already is
  });

  it("refuse a folder under itself or under its own subtree: CYCLE", () => {
    expect(moveRefusal(moved("a", 2), parent("a"))).toBe("CYCLE");
    expect(moveRefusal(moved("a", 2), parent("c"))).toBe("CYCLE");
    expect(moveRefusal(moved("r", 3), parent("d"))).toBe("CYCLE"); // a root can never move
  });

  it("refuse a new parent in another project: OTHER_PROJECT", () => {
    expect(moveRefusal(moved("a", 2), parent("x", "Q"))).toBe("OTHER_PROJECT");
  });

  it("refuse a move that would put the subtree's deepest folder beyond the maximum: TOO_DEEP", () => {
    // d is at depth 1; a's subtree is 2 high: its deepest folder would land at 1 + 1 + 2 = 4.
    expect(moveRefusal(moved("a", 2), parent("d"), 4)).toBeNull();
    expect(moveRefusal(moved("a", 2), parent("d"), 3)).toBe("TOO_DEEP");
  });

  it("check in the order CYCLE, OTHER_PROJECT, TOO_DEEP", () => {
    expect(moveRefusal(moved("a", 2, "P"), parent("c", "Q"), 0)).toBe("CYCLE");
    expect(moveRefusal(moved("a", 2, "P"), parent("x", "Q"), 0)).toBe("OTHER_PROJECT");
  });

  it("default to a maximum depth of 6", () => {
    expect(MAX_FOLDER_DEPTH).toBe(6);
    const deepParent = { id: "p5", path: "/p0/p1/p2/p3/p4/p5/", projectId: "P" };
    expect(moveRefusal({ id: "leaf", path: "/p0/leaf/", projectId: "P", subtreeHeight: 0 }, deepParent)).toBeNull();
    expect(moveRefusal({ id: "pair", path: "/p0/pair/", projectId: "P", subtreeHeight: 1 }, deepParent)).toBe("TOO_DEEP");
  });
});

describe("new folders", () => {
  it("may go anywhere above the maximum depth; roots always", () => {
    expect(newFolderRefusal(null)).toBeNull();
    expect(newFolderRefusal(5)).toBeNull();
    expect(newFolderRefusal(6)).toBe("TOO_DEEP");
    expect(newFolderRefusal(2, 2)).toBe("TOO_DEEP");
    expect(newFolderRefusal(1, 2)).toBeNull();
  });
});

describe("breadcrumbs", () => {
  const entry = (id: string, ...permissions: ("READ" | "WRITE")[]) => ({ id, permissions });

  it("show the whole chain when every member is readable", () => {
    expect(visibleBreadcrumb([entry("r", "READ"), entry("a", "READ", "WRITE")])).toEqual({
      entries: [entry("r", "READ"), entry("a", "READ", "WRITE")],
      truncated: false,
    });
  });

  it("skip unreadable members and say the breadcrumb was truncated", () => {
    const crumb = visibleBreadcrumb([entry("r"), entry("a", "READ"), entry("b", "WRITE"), entry("c", "READ")]);
    expect(crumb.entries.map((e) => e.id)).toEqual(["a", "c"]);
    expect(crumb.truncated).toBe(true);
  });
});
