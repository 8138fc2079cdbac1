import { describe, expect, it } from "vitest";
import { createApiClient } from "../../src/client";
import { createAccount, createUser } from "./helpers";
import { fetchWorker } from "./harness/worker";
import { createSource } from "./source-helpers";

/** The typed client of src/client.ts (README, "Typed client"), against the real Worker. */
describe("createApiClient", () => {
  const clientOf = (user: { username: string; password: string }, contextPath = "") =>
    createApiClient(`http://api.test${contextPath}`, {
      ...user,
      fetch: (input, init) => fetchWorker(new Request(input, init), contextPath),
    });

  it("lists the caller's sources and creates a custom metric, as the README's example does", async () => {
    const account = await createAccount();
    const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
    const source = await createSource(admin);
    const api = clientOf(admin);

    const listed = await api.api.sources.$get({ query: { maxResults: "10" } });
    expect(listed.status).toBe(200);
    const { content } = await listed.json();
    expect(content.map((s) => s.id)).toEqual([source.id]);

    const created = await api.api.sources[":sourceId"]["custom-metrics"].$post({
      param: { sourceId: source.id },
      json: { name: "row_count", label: "Row count", expression: "count(*)" },
    });
    expect(created.status).toBe(201);
    const metric = await created.json();
    expect(metric).toMatchObject({ name: "row_count", label: "Row count", dataType: "INTEGER" });

    const again = await api.api.sources[":sourceId"]["custom-metrics"][":customMetricName"].$get({
      param: { sourceId: source.id, customMetricName: "row_count" },
    });
    expect(again.status).toBe(200);
    expect((await again.json()).expression).toBe("count(*)");
  });

  it("sends Basic credentials in UTF-8 and works behind a context path", async () => {
    const account = await createAccount();
    const user = await createUser(account.id, { name: `zoë-${Date.now().toString(36)}`, password: "pässwörd-ünïcode" });
    const res = await clientOf(user, "/composer").api.user.$get();
    expect(res.status).toBe(200);
    expect((await res.json()).name).toBe(user.username);
  });

  it("gets the API's errors as they are (401 for bad credentials)", async () => {
    const res = await clientOf({ username: "nobody", password: "wrong-password" }).api.sources.$get({ query: {} });
    expect(res.status).toBe(401);
  });

  it("carries the bookmark of each answer to the next request (X-D1-Bookmark), unless told not to", async () => {
    const account = await createAccount();
    const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
    const sent: (string | null)[] = [];
    const answered: (string | null)[] = [];
    const recording = (carryBookmark?: boolean) =>
      createApiClient("http://api.test", {
        ...admin,
        carryBookmark,
        fetch: async (input, init) => {
          const request = new Request(input, init);
          sent.push(request.headers.get("X-D1-Bookmark"));
          const response = await fetchWorker(request);
          answered.push(response.headers.get("X-D1-Bookmark"));
          return response;
        },
      });

    const api = recording();
    expect((await api.api.sources.$get({ query: {} })).status).toBe(200);
    await api.api.user.$get();
    await api.api.user.$get();
    expect(sent[0]).toBeNull();
    expect(answered.every((b) => b !== null)).toBe(true);
    expect(sent.slice(1)).toEqual(answered.slice(0, 2));

    sent.length = 0;
    const plain = recording(false);
    await plain.api.user.$get();
    await plain.api.user.$get();
    expect(sent).toEqual([null, null]);
  });
});
