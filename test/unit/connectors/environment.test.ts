import { afterEach, describe, expect, it, vi } from "vitest";
import { checkHost } from "../../../src/domain/connectors/host-policy";
import { connectorEnvironment, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_OPERATION_TIMEOUT_MS } from "../../../src/connectors/environment";
import { formatDuration, withDeadline } from "../../../src/connectors/deadline";
import type { Bindings } from "../../../src/lib/types";

afterEach(() => vi.restoreAllMocks());

describe("connectorEnvironment", () => {
  it("has safe defaults: public hosts only, no Hyperdrive", () => {
    const environment = connectorEnvironment({});
    expect(environment.timeouts).toEqual({ connectMs: DEFAULT_CONNECT_TIMEOUT_MS, operationMs: DEFAULT_OPERATION_TIMEOUT_MS });
    expect(environment.maxResponseBytes).toBe(DEFAULT_MAX_RESPONSE_BYTES);
    expect(environment.hyperdrives).toEqual({});
    expect(checkHost(environment.hostPolicy, "db.example.com", 5432).allowed).toBe(true);
    expect(checkHost(environment.hostPolicy, "127.0.0.1", 5432).allowed).toBe(false);
  });

  it("reads the vars, and ignores values that are not positive whole numbers", () => {
    const environment = connectorEnvironment({
      CONNECTOR_ALLOWED_HOSTS: "127.0.0.1",
      CONNECTOR_CONNECT_TIMEOUT_MS: "1500",
      CONNECTOR_OPERATION_TIMEOUT_MS: "-3",
      CONNECTOR_MAX_RESPONSE_BYTES: "1e3",
    });
    expect(environment.timeouts).toEqual({ connectMs: 1500, operationMs: DEFAULT_OPERATION_TIMEOUT_MS });
    expect(environment.maxResponseBytes).toBe(1000);
    expect(checkHost(environment.hostPolicy, "127.0.0.1", 1).allowed).toBe(true);
    expect(checkHost(environment.hostPolicy, "db.example.com", 1).allowed).toBe(false);
  });

  it("offers only the Hyperdrive bindings the operator lists, and only real ones", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const hyperdrive = { connect: () => undefined, connectionString: "postgresql://u:p@h:5432/d" };
    const environment = connectorEnvironment({
      CONNECTOR_HYPERDRIVE_BINDINGS: "SALES_DB, DB, MISSING",
      SALES_DB: hyperdrive,
      OTHER_DB: hyperdrive,
      DB: { prepare: () => undefined }, // a D1 database is not a Hyperdrive
    });
    expect(Object.keys(environment.hyperdrives)).toEqual(["SALES_DB"]);
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it("reports unreadable host entries instead of using them", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    connectorEnvironment({ CONNECTOR_ALLOWED_HOSTS: "db.example.com, not a host" });
    expect(warn).toHaveBeenCalledWith(JSON.stringify({ event: "connector_allowed_hosts_ignored", entries: ["not a host"] }));
  });

  it("takes the Worker's env as it is typed", () => {
    // Only what the connectors read is filled in; the rest of the Worker's env does not matter here.
    const workerEnv = { DB: {} as D1Database, CONNECTOR_ALLOWED_HOSTS: "" } as Bindings;
    expect(connectorEnvironment(workerEnv).hostPolicy.allowsPublicHosts).toBe(true);
  });

  it("is read once per env object", () => {
    const env = { CONNECTOR_CONNECT_TIMEOUT_MS: "1234" };
    expect(connectorEnvironment(env)).toBe(connectorEnvironment(env));
  });
});

describe("withDeadline", () => {
  it("passes the result through in time, and the caller's error after it", async () => {
    await expect(withDeadline(Promise.resolve(7), 1000, () => new Error("late"))).resolves.toBe(7);
    await expect(withDeadline(new Promise(() => {}), 20, () => new Error("late"))).rejects.toThrow("late");
    await expect(withDeadline(Promise.reject(new Error("own")), 1000, () => new Error("late"))).rejects.toThrow("own");
  });

  it("formats durations for people", () => {
    expect(formatDuration(800)).toBe("800 ms");
    expect(formatDuration(5000)).toBe("5 s");
    expect(formatDuration(1500)).toBe("1.5 s");
  });
});
