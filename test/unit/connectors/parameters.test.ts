import { describe, expect, it } from "vitest";
import { checkParameters, redactSecrets, secretValues, type ParameterDescriptor } from "../../../src/domain/connectors/parameters";

const descriptors: ParameterDescriptor[] = [
  { key: "host", label: "Host", valueType: "STRING", required: true, secret: false },
  { key: "port", label: "Port", valueType: "INTEGER", required: false, secret: false, defaultValue: "5432" },
  { key: "password", label: "Password", valueType: "PASSWORD", required: false, secret: true },
  { key: "verbose", label: "Verbose", valueType: "BOOLEAN", required: false, secret: false },
  { key: "url", label: "URL", valueType: "URL", required: false, secret: false },
  { key: "mode", label: "Mode", valueType: "STRING", required: false, secret: false, allowedValues: ["a", "b"] },
  { key: "secretHeader.", prefix: true, label: "Secret header", valueType: "PASSWORD", required: false, secret: true },
];

describe("checkParameters", () => {
  it("fills defaults, trims ordinary values, keeps secrets exactly", () => {
    expect(checkParameters(descriptors, { host: "  db  ", password: " pw " })).toEqual({
      values: { host: "db", port: "5432", password: " pw " },
      problems: [],
    });
  });

  it("reports each problem once, by key, without repeating values", () => {
    const { problems } = checkParameters(descriptors, {
      host: " ",
      port: "54x",
      verbose: "yes",
      url: "ftp://x",
      mode: "c",
    });
    expect(problems).toEqual([
      { key: "host", message: "Host is required." },
      { key: "port", message: "Port must be a whole number." },
      { key: "verbose", message: "Verbose must be true or false." },
      { key: "url", message: "URL must be an absolute http:// or https:// URL." },
      { key: "mode", message: "Mode must be one of: a, b." },
    ]);
  });

  it("takes every key under a prefix, and ignores keys nobody describes", () => {
    const { values } = checkParameters(descriptors, { host: "h", "secretHeader.X-Key": "k", "secretHeader.": "no name", unknown: "x" });
    expect(values).toEqual({ host: "h", port: "5432", "secretHeader.X-Key": "k" });
  });

  it("ignores inherited keys", () => {
    const values = Object.create({ host: "inherited" }) as Record<string, string>;
    expect(checkParameters(descriptors, values).problems).toEqual([{ key: "host", message: "Host is required." }]);
  });
});

describe("secrets", () => {
  it("are the values of secret parameters, prefixed ones included", () => {
    expect(secretValues(descriptors, { host: "h", password: "pw", "secretHeader.X-Key": "key", "secretHeader.X-Empty": "" })).toEqual(["pw", "key"]);
  });

  it("are scrubbed from messages, the longest first", () => {
    expect(redactSecrets('user "bob" with password hunter2 and hunter22', ["hunter2", "hunter22"])).toBe('user "bob" with password *** and ***');
    expect(redactSecrets("nothing to hide", [])).toBe("nothing to hide");
    expect(redactSecrets("empty secrets are ignored", [""])).toBe("empty secrets are ignored");
    expect(redactSecrets("a.b*c a.b*c", ["a.b*c"])).toBe("*** ***"); // not a regular expression
  });
});
