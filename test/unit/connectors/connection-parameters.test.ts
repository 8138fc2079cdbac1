import { describe, expect, it } from "vitest";
import { checkConnectionParameters, isSecretKey, typeParameterOf, typesTakingParameters, type TypeParameter } from "../../../src/domain/connectors/connection-parameters";
import type { ParameterDescriptor } from "../../../src/domain/connectors/parameters";

const param = (key: string, extra: Partial<TypeParameter> = {}): TypeParameter => ({
  key,
  label: key.toUpperCase(),
  valueType: "STRING",
  required: false,
  values: [],
  visible: true,
  sequenceNumber: 0,
  helper: null,
  userAttribute: false,
  requireValidation: false,
  ...extra,
});

const typeParameters = [
  param("host", { required: true }),
  param("port", { valueType: "INTEGER" }),
  param("mode", { values: ["a", "b"] }),
  param("token", { valueType: "PASSWORD" }),
  param("header."),
  param("ssl", { valueType: "BOOLEAN" }),
];

// What the connector says: a secret the type does not mark PASSWORD, a deprecated setting, a default.
const descriptors: ParameterDescriptor[] = [
  { key: "host", label: "Host", valueType: "STRING", required: true, secret: false },
  { key: "port", label: "Port", valueType: "INTEGER", required: false, secret: false, defaultValue: "5432" },
  { key: "apiKey", label: "API key", valueType: "STRING", required: false, secret: true },
  { key: "ssl", label: "SSL", valueType: "BOOLEAN", required: false, secret: false, deprecated: "Use mode instead." },
];

describe("checkConnectionParameters", () => {
  it("finds nothing wrong with good values", () => {
    expect(checkConnectionParameters(typeParameters, descriptors, { host: "db", port: "5433", mode: "a", token: "t", "header.X-A": "1" })).toEqual([]);
  });

  it("makes ERRORs of a missing required key, a wrong valueType and a value outside the allowed ones, naming keys, never values", () => {
    const findings = checkConnectionParameters(typeParameters, descriptors, { host: " ", port: "54x", mode: "zzz-secret-looking" });
    expect(findings).toEqual([
      { key: "host", level: "ERROR", message: "HOST is required." },
      { key: "port", level: "ERROR", message: "PORT must be a whole number." },
      { key: "mode", level: "ERROR", message: "MODE must be one of: a, b." },
    ]);
    expect(JSON.stringify(findings)).not.toContain("zzz-secret-looking");
  });

  it("makes WARNINGs of a key the type does not declare and of a deprecated setting", () => {
    expect(checkConnectionParameters(typeParameters, descriptors, { host: "db", colour: "blue", ssl: "true" })).toEqual([
      { key: "colour", level: "WARNING", message: '"colour" is not a parameter of this connection type; no connector reads it.' },
      { key: "ssl", level: "WARNING", message: '"ssl" is deprecated. Use mode instead.' },
    ]);
    // An empty deprecated setting is not one that is used.
    expect(checkConnectionParameters(typeParameters, descriptors, { host: "db", ssl: "" })).toEqual([]);
  });

  it("takes a family's members but not its bare prefix", () => {
    expect(typeParameterOf(typeParameters, "header.X-Api-Version")?.key).toBe("header.");
    expect(typeParameterOf(typeParameters, "header.")).toBeUndefined();
    expect(checkConnectionParameters(typeParameters, descriptors, { host: "db", "header.": "x" }).map((f) => f.level)).toEqual(["WARNING"]);
  });
});

describe("isSecretKey", () => {
  it("is true for PASSWORD keys of the type and for keys the connector marks secret", () => {
    expect(isSecretKey("token", typeParameters, descriptors)).toBe(true);
    expect(isSecretKey("apiKey", typeParameters, descriptors)).toBe(true);
    expect(isSecretKey("host", typeParameters, descriptors)).toBe(false);
    expect(isSecretKey("secretHeader.X", [param("secretHeader.", { valueType: "PASSWORD" })], [])).toBe(true);
  });
});

describe("typesTakingParameters (BY_TYPE_AND_PARAMETERS)", () => {
  const narrow = { id: "narrow", parameters: [param("host", { required: true }), param("db")] };
  const wide = { id: "wide", parameters: [param("host", { required: true }), param("db"), param("extra")] };
  const strict = { id: "strict", parameters: [param("host", { required: true }), param("db", { required: true })] };

  it("keeps the types whose required keys are all given and which declare every given key, narrowest first", () => {
    expect(typesTakingParameters([wide, narrow, strict], ["host"]).map((t) => t.id)).toEqual(["narrow", "wide"]);
    expect(typesTakingParameters([wide, narrow, strict], ["host", "db"]).map((t) => t.id)).toEqual(["narrow", "strict", "wide"]);
    expect(typesTakingParameters([wide, narrow, strict], ["host", "extra"]).map((t) => t.id)).toEqual(["wide"]);
    expect(typesTakingParameters([wide, narrow, strict], ["db"])).toEqual([]);
    expect(typesTakingParameters([wide, narrow, strict], ["host", "unknown"])).toEqual([]);
  });
});
