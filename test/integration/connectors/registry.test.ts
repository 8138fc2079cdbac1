// The registry: which connectors exist and how their parameters are described (the
// material built-in connection types are generated from). Runs in workerd because the
// PostgreSQL connector imports cloudflare:sockets.
import { describe, expect, it } from "vitest";
import { ConnectorError, createConnector, findConnector, listConnectors, suggestedHttpStatus } from "../../../src/connectors";
import { environment } from "./helpers";

describe("connector registry", () => {
  it("lists each connector once, with labelled parameters", () => {
    const ids = listConnectors().map((c) => c.id);
    expect(ids).toEqual(["postgresql", "postgresql-hyperdrive", "http-json", "json-datasets"]);
    for (const connector of listConnectors()) {
      expect(connector.label).not.toBe("");
      expect(new Set(connector.parameters.map((p) => p.key)).size).toBe(connector.parameters.length);
    }
  });

  it("marks exactly the secret parameters as secret", () => {
    const secrets = (id: string) => findConnector(id)!.parameters.filter((p) => p.secret).map((p) => p.key);
    expect(secrets("postgresql")).toEqual(["password"]);
    expect(secrets("postgresql-hyperdrive")).toEqual([]);
    expect(secrets("http-json")).toEqual(["authorization", "secretHeader."]);
    expect(secrets("json-datasets")).toEqual([]);
    expect(findConnector("postgresql")!.parameters.find((p) => p.key === "password")!.valueType).toBe("PASSWORD");
  });

  it("describes the PostgreSQL parameters", () => {
    const byKey = Object.fromEntries(findConnector("postgresql")!.parameters.map((p) => [p.key, p]));
    expect(Object.keys(byKey)).toEqual(["host", "port", "database", "user", "password", "sslmode", "ssl"]);
    expect(byKey.ssl).toMatchObject({ valueType: "BOOLEAN", deprecated: expect.stringContaining("sslmode") });
    expect(byKey.port).toMatchObject({ valueType: "INTEGER", required: false, defaultValue: "5432" });
    expect(byKey.sslmode).toMatchObject({ allowedValues: ["disable", "prefer", "require"], defaultValue: "require" });
    expect(byKey.host.required && byKey.database.required && byKey.user.required).toBe(true);
  });

  it("checks parameters without connecting", () => {
    const env = environment({ allowedHosts: "*" });
    expect(findConnector("postgresql")!.checkParameters({ host: "db.example.com", database: "d", user: "u" }, env)).toEqual([]);
    expect(findConnector("postgresql")!.checkParameters({ port: "x" }, env).map((p) => p.key)).toEqual(["host", "port", "database", "user"]);
    expect(findConnector("postgresql-hyperdrive")!.checkParameters({ hyperdriveBinding: "NOPE" }, env)).toEqual([
      { key: "hyperdriveBinding", message: 'This service has no Hyperdrive binding named "NOPE" that connections may use.' },
    ]);
    expect(findConnector("http-json")!.checkParameters({ url: "https://example.com/data.json" }, env)).toEqual([]);
  });

  it("checks the host policy as a parameter problem, before anything is stored or contacted", () => {
    const onlyLoopback = environment({ allowedHosts: "127.0.0.1" });
    expect(findConnector("postgresql")!.checkParameters({ host: "db.example.com", database: "d", user: "u" }, onlyLoopback)).toEqual([
      { key: "host", message: 'Host "db.example.com" (port 5432) is not in the list of hosts this service may connect to.' },
    ]);
    expect(findConnector("postgresql")!.checkParameters({ host: "127.0.0.1", database: "d", user: "u" }, onlyLoopback)).toEqual([]);
    expect(findConnector("http-json")!.checkParameters({ url: "http://169.254.169.254/latest" }, environment({ allowedHosts: "*" }))).toEqual([
      { key: "url", message: 'Host "169.254.169.254" is a link-local address; this service connects to such hosts only when its operator allows them explicitly.' },
    ]);
  });

  it("refuses an unknown connector id", () => {
    expect(findConnector("oracle")).toBeUndefined();
    expect(() => createConnector("oracle", {}, environment())).toThrow(ConnectorError);
    expect(() => createConnector("oracle", {}, environment())).toThrow(/Unknown connector "oracle"/);
  });

  it("a Hyperdrive connection whose binding is not offered fails without throwing from test()", async () => {
    const result = await createConnector("postgresql-hyperdrive", { hyperdriveBinding: "DB" }, environment()).test();
    expect(result).toEqual({ connected: false, message: 'Invalid parameters: This service has no Hyperdrive binding named "DB" that connections may use.' });
  });

  it("suggests a 4xx for every error kind", () => {
    for (const status of Object.values(suggestedHttpStatus)) expect(status >= 400 && status < 500).toBe(true);
  });
});
