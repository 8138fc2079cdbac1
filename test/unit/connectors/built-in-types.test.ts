import { describe, expect, it } from "vitest";
import { builtInConnectionType, storageTypeOf } from "../../../src/domain/connectors/built-in-types";

describe("builtInConnectionType", () => {
  const connector = {
    id: "http-json",
    label: "HTTP JSON",
    description: "A URL.",
    parameters: [
      { key: "url", label: "URL", valueType: "URL" as const, required: true, secret: false, helper: "An address." },
      { key: "mode", label: "Mode", valueType: "STRING" as const, required: false, secret: false, allowedValues: ["a", "b"] },
      { key: "token", label: "Token", valueType: "PASSWORD" as const, required: false, secret: true },
      { key: "header.", label: "Header", valueType: "STRING" as const, required: false, secret: false, prefix: true },
      { key: "old", label: "Old", valueType: "BOOLEAN" as const, required: false, secret: false, deprecated: "Use mode." },
    ],
  };

  it("is named after its connector, with the connector's parameters as the type declares them", () => {
    const type = builtInConnectionType(connector);
    expect(type).toMatchObject({ id: "http-json", connectorId: "http-json", name: "HTTP JSON", description: "A URL.", type: "HTTP_JSON", subStorageType: "HTTP_JSON" });
    expect(type.parameters.map((p) => [p.key, p.sequenceNumber, p.visible, p.requireValidation])).toEqual([
      ["url", 0, true, true],
      ["mode", 1, true, false],
      ["token", 2, true, true],
      ["header.", 3, true, false],
      ["old", 4, false, false],
    ]);
    expect(type.parameters[1]!.values).toEqual(["a", "b"]);
    expect(type.parameters[0]!.helper).toBe("An address.");
    expect(type.parameters[4]!.helper).toBe("Use mode.");
  });

  it("takes the connector's storage type when it has one", () => {
    expect(storageTypeOf({ id: "postgresql-hyperdrive", storageType: { type: "POSTGRESQL", subStorageType: "HYPERDRIVE" } })).toEqual({ type: "POSTGRESQL", subStorageType: "HYPERDRIVE" });
    expect(storageTypeOf({ id: "postgresql-hyperdrive" })).toEqual({ type: "POSTGRESQL_HYPERDRIVE", subStorageType: "POSTGRESQL_HYPERDRIVE" });
  });
});
