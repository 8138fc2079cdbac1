// The HTTP JSON connector against a real HTTP server (started by the global setup), through
// the Worker's fetch, exactly as the Worker uses it.
import { describe, expect, it } from "vitest";
import { createConnector } from "../../../src/connectors";
import { FIXTURE_BEARER_TOKEN, FIXTURE_RECORDS } from "../../global-setup/fixture-data.mjs";
import { environment, expectConnectorError, servers, timed } from "./helpers";

const at = (path: string) => `${servers.jsonBaseUrl}${path}`;
const http = (parameters: Record<string, string>, env = environment()) => createConnector("http-json", parameters, env);

describe("test()", () => {
  it("reads the records, and warns that http:// is clear text", async () => {
    const result = await http({ url: at("/records.json") }).test();
    expect(result).toEqual({
      connected: true,
      message: `Received 3 records with 7 columns from ${servers.jsonBaseUrl}.`,
      warning: "The URL uses http://: the data and the headers, secrets included, travel unencrypted.",
    });
  });

  it("warns that an empty array has no columns", async () => {
    const result = await http({ url: at("/empty.json") }).test();
    expect(result.connected).toBe(true);
    expect(result.warning).toContain("empty array");
  });

  it("sends the Authorization header, and never repeats it when it is refused", async () => {
    expect((await http({ url: at("/secured.json"), authorization: `Bearer ${FIXTURE_BEARER_TOKEN}` }).test()).connected).toBe(true);
    const refused = await http({ url: at("/secured.json"), authorization: "Bearer not-the-token" }).test();
    expect(refused).toEqual({
      connected: false,
      message: `${servers.jsonBaseUrl} refused the request (HTTP 401): check the Authorization and secret headers.`,
    });
    expect((await http({ url: at("/secured.json") }).test()).connected).toBe(false);
  });

  it("turns every broken answer into a clear message", async () => {
    const cases: [string, string][] = [
      ["/not-json", "The answer is not JSON (content type text/html)."],
      ["/object.json", "The answer is JSON but not an array of records: it is an object."],
      ["/scalars.json", "Item 1 of the array is a number, not an object."],
      ["/server-error", `${servers.jsonBaseUrl} answered with an error (HTTP 500).`],
      ["/missing", `${servers.jsonBaseUrl} has nothing at this path (HTTP 404).`],
    ];
    for (const [path, message] of cases) expect(await http({ url: at(path) }).test(), path).toEqual({ connected: false, message });
  });

  it("gives up after the connect time-out on a server that never answers", async () => {
    const { result, ms } = await timed(() => http({ url: at("/slow.json") }, environment({ connectMs: 600 })).test());
    expect(result).toEqual({ connected: false, message: `${servers.jsonBaseUrl} did not answer within 600 ms.` });
    expect(ms).toBeGreaterThanOrEqual(550);
    expect(ms).toBeLessThan(2500);
  });

  it("stops reading an answer larger than the cap", async () => {
    const error = await expectConnectorError(
      http({ url: at("/huge.json") }, environment({ maxResponseBytes: 1_000_000 })).describeSchema("default"),
      "RESPONSE_TOO_LARGE",
    );
    expect(error.message).toBe("The answer is larger than 1000000 bytes.");
  });

  it("says so when nothing listens on the port", async () => {
    const url = `http://127.0.0.1:${servers.closedPort}`;
    const result = await http({ url: `${url}/data.json?token=abc` }).test();
    expect(result).toEqual({ connected: false, message: `Could not reach ${url} (wrong host or port, server down, or blocked).` });
  });

  it("refuses a host outside the allowed hosts, also when a redirect leads there", async () => {
    const publicOnly = await http({ url: at("/records.json") }, environment({ allowedHosts: "" })).test();
    expect(publicOnly).toEqual({
      connected: false,
      message: 'Host "127.0.0.1" is a loopback address; this service connects to such hosts only when its operator allows them explicitly.',
    });
    const toPrivate = http({ url: at(`/redirect?to=${encodeURIComponent("http://10.1.2.3/records.json")}`) });
    const error = await expectConnectorError(toPrivate.describeSchema("default"), "HOST_NOT_ALLOWED");
    expect(error.message).toBe('Host "10.1.2.3" (port 80) is not in the list of hosts this service may connect to.');
    expect((await http({ url: at("/redirect?to=/records.json") }).test()).connected).toBe(true);
  });

  it("lists invalid parameters", async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, "Invalid parameters: URL is required."],
      [{ url: "ftp://example.com/x.json" }, "Invalid parameters: URL must be an absolute http:// or https:// URL."],
      [{ url: "https://user:pw@example.com/" }, "Invalid parameters: The URL must not contain a user name or password; use the Authorization header parameter."],
      [{ url: at("/records.json"), "header.Bad Name": "x" }, 'Invalid parameters: "Bad Name" is not a valid header name.'],
      [{ url: at("/records.json"), "header.Host": "evil.example" }, "Invalid parameters: The Host header cannot be set by a connection."],
    ];
    for (const [parameters, message] of cases) expect(await http(parameters).test()).toEqual({ connected: false, message });
  });
});

describe("schema and table", () => {
  it("has one schema, 'default', with one table", async () => {
    expect(await http({ url: at("/records.json") }).listSchemas()).toEqual(["default"]);
    const [table, ...others] = await http({ url: at("/records.json"), tableName: "people" }).describeSchema("default");
    expect(others).toEqual([]);
    expect(table).toEqual({
      name: "people",
      kind: "TABLE",
      columns: [
        { name: "id", nativeType: "INTEGER", nullable: false },
        { name: "name", nativeType: "TEXT", nullable: false },
        { name: "price", nativeType: "NUMBER", nullable: false },
        { name: "active", nativeType: "BOOLEAN", nullable: false },
        { name: "created", nativeType: "TIME", nullable: false },
        { name: "note", nativeType: "TEXT", nullable: true },
        { name: "tags", nativeType: "JSON", nullable: false },
      ],
    });
  });

  it("answers NOT_FOUND for any other schema or table", async () => {
    await expectConnectorError(http({ url: at("/records.json") }).describeSchema("public"), "NOT_FOUND");
    await expectConnectorError(http({ url: at("/records.json") }).preview("default", "people"), "NOT_FOUND");
  });
});

describe("preview()", () => {
  it("returns rows aligned with the inferred columns, null where a member is missing", async () => {
    const { columns, rows } = await http({ url: at("/records.json") }).preview("default", "records", 2);
    expect(columns.map((c) => c.name)).toEqual(Object.keys(FIXTURE_RECORDS[0]));
    expect(rows).toEqual([
      [1, "Ada", 12.5, true, "2024-01-15T10:00:00Z", "first", ["a"]],
      [2, "Brendan", 3, false, "2024-02-01", null, []],
    ]);
    const third = await http({ url: at("/records.json") }).preview("default", "records");
    expect(third.rows[2]).toEqual([3, "Chiara", 7.25, true, "2024-03-10T17:45:00+01:00", null, ["b", "c"]]);
  });

  it("caps the rows: 100 by default, never more than 1000", async () => {
    const many = http({ url: at("/many.json") });
    expect((await many.preview("default", "records")).rows).toHaveLength(100);
    expect((await many.preview("default", "records", 5000)).rows).toHaveLength(1000);
    await expectConnectorError(many.preview("default", "records", -1), "INVALID_PARAMETERS");
  });

  const headers = { "header.X-Custom": "plain", "secretHeader.X-Other": "hidden", authorization: "Bearer xyz" };

  it("sends the extra headers, secret ones included", async () => {
    const { rows } = await http({ url: at("/echo-headers.json"), ...headers }).preview("default", "records");
    expect(rows).toEqual([["plain", "hidden", "Bearer xyz", "application/json"]]);
  });

  it("keeps the headers on a same-origin redirect and drops them on a cross-origin one", async () => {
    const same = await http({ url: at("/redirect?to=/echo-headers.json"), ...headers }).preview("default", "records");
    expect(same.rows).toEqual([["plain", "hidden", "Bearer xyz", "application/json"]]);
    const elsewhere = encodeURIComponent(`${servers.otherJsonBaseUrl}/echo-headers.json`);
    const cross = await http({ url: at(`/redirect?to=${elsewhere}`), ...headers }).preview("default", "records");
    expect(cross.rows).toEqual([[null, null, null, "application/json"]]);
  });
});
