import { findConnector, type ConnectorDefinition, type ConnectorEnvironment } from "../../connectors";
import type { ConnectionRow, ConnectionTypeRow, TypeForAccount } from "../../db/connections";
import type { StoredParameter } from "../../db/schema";
import { checkConnectionParameters, isSecretKey, typesTakingParameters } from "../../domain/connectors/connection-parameters";
import type { ConnectionSecrets, SecretPlace } from "../../domain/connectors/connection-secrets";
import { ApiError, type Problem } from "../../lib/errors";
import { auditOut } from "../../lib/http";
import type { ConnectionWrite } from "./connections.schemas";

/**
 * The rules of a connection write or validation, between the request and storage: which type the
 * body names, what is wrong with its parameters (Problems of level ERROR or WARNING), which values
 * are secret and how they are kept, and how a stored connection is answered.
 */
export type Strategy = "BY_ID" | "BY_TYPE_AND_PARAMETERS";

/** `strategy`, or the reference product's `connectionTypeMatchingStrategy`; else BY_ID when the body names a type id. */
export function strategyOf(query: { strategy?: Strategy; connectionTypeMatchingStrategy?: Strategy }, body: ConnectionWrite): Strategy {
  const { strategy, connectionTypeMatchingStrategy: alias } = query;
  if (strategy && alias && strategy !== alias) {
    throw invalidRequest([{ name: "query.connectionTypeMatchingStrategy", message: "Differs from query.strategy: give one of them", level: "ERROR" }]);
  }
  return strategy ?? alias ?? (body.connectionTypeId !== undefined ? "BY_ID" : "BY_TYPE_AND_PARAMETERS");
}

export interface GivenParameter {
  key: string;
  /** Undefined: sent without a value, which keeps the stored one. */
  value: string | undefined;
  systemAccess: boolean;
  index: number;
}

export function givenParameters(items: ConnectionWrite["allParameters"]): GivenParameter[] {
  const seen = new Set<string>();
  const problems: Problem[] = [];
  const given = items.map((item, index) => {
    if (seen.has(item.key)) problems.push({ name: `body.allParameters[${index}].key`, message: `"${item.key}" is given twice`, level: "ERROR" });
    seen.add(item.key);
    return { key: item.key, value: item.value, systemAccess: item.systemAccess ?? item.isSystemAccess ?? false, index };
  });
  if (problems.length > 0) throw invalidRequest(problems);
  return given;
}

/**
 * The values a connection works with: those sent, and for keys sent without a value the stored
 * ones (secrets opened). Throws 409 CONNECTION_SECRETS_UNAVAILABLE when a stored secret cannot be opened.
 */
export async function effectiveValues(
  given: readonly GivenParameter[],
  stored: readonly StoredParameter[],
  place: Omit<SecretPlace, "key">,
  secrets: ConnectionSecrets,
): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const { key, value } of given) {
    const kept = value === undefined ? stored.find((p) => p.key === key) : undefined;
    values[key] = value ?? (kept ? await openStored(kept, place, secrets) : "");
  }
  return values;
}

/** All the stored values, secrets opened: what a connector is made with. */
export async function storedValues(connection: ConnectionRow, secrets: ConnectionSecrets): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const parameter of connection.parameters) values[parameter.key] = await openStored(parameter, placeOf(connection), secrets);
  return values;
}

const placeOf = (connection: ConnectionRow) => ({ accountId: connection.accountId, connectionId: connection.id });

async function openStored(parameter: StoredParameter, place: Omit<SecretPlace, "key">, secrets: ConnectionSecrets): Promise<string> {
  if (parameter.sealed === undefined) return parameter.value ?? "";
  const value = await secrets.open(parameter.sealed, { ...place, key: parameter.key });
  if (value === undefined) {
    throw new ApiError(
      "CONNECTION_SECRETS_UNAVAILABLE",
      `The stored value of "${parameter.key}" cannot be decrypted: CONNECTION_SECRETS_KEY ${secrets.configured ? "no longer holds the key it was sealed with" : "is not set"}. Send the value again.`,
    );
  }
  return value;
}

/** The type a write or validation names, by its strategy; throws 400 (no such type for the account) or 409 (disabled). */
export function chooseType(strategy: Strategy, body: ConnectionWrite, candidates: readonly TypeForAccount[], presentKeys: readonly string[]): ConnectionTypeRow {
  const usable = candidates.filter((c) => c.available);
  if (strategy === "BY_ID") {
    if (body.connectionTypeId === undefined) throw invalid("body.connectionTypeId", "Required to match the connection type BY_ID");
    const found = usable.find((c) => c.type.id === body.connectionTypeId);
    if (!found) throw invalid("body.connectionTypeId", "No connection type with this id is available to the account");
    return assertEnabled(found.type);
  }
  const missing: Problem[] = (["type", "subStorageType"] as const)
    .filter((member) => body[member] === undefined)
    .map((member) => ({ name: `body.${member}`, message: "Required to match the connection type BY_TYPE_AND_PARAMETERS", level: "ERROR" }));
  if (missing.length > 0) throw invalidRequest(missing);
  const matching = typesTakingParameters(
    usable.map((c) => c.type),
    presentKeys,
  );
  const enabled = matching.find((t) => t.enabled);
  if (enabled) return enabled;
  if (matching.length > 0) return assertEnabled(matching[0]!);
  throw invalid(
    "body.type",
    `No connection type available to the account has type ${body.type} and subStorageType ${body.subStorageType}, declares every key given and has all its required keys given`,
  );
}

export function assertEnabled(type: ConnectionTypeRow): ConnectionTypeRow {
  if (!type.enabled) throw new ApiError("CONNECTION_TYPE_DISABLED", type.disabledMessage || `The connection type '${type.name}' is disabled`);
  return type;
}

/** For a stored connection: its type must still be enabled and available to its account. */
export function assertTypeUsable(type: ConnectionTypeRow, available: boolean): void {
  if (!available) throw new ApiError("CONNECTION_TYPE_DISABLED", `The connection type '${type.name}' is no longer available to this account`);
  assertEnabled(type);
}

/** With BY_ID, a `type` or `subStorageType` sent must be the type's own. */
export function storageProblems(body: ConnectionWrite, type: ConnectionTypeRow): Problem[] {
  return (["type", "subStorageType"] as const)
    .filter((member) => body[member] !== undefined && body[member] !== type[member])
    .map((member) => ({ name: `body.${member}`, message: `Is not the connection type's ${member}, ${type[member]}`, level: "ERROR" }));
}

/**
 * Every problem of the values under the type: the type's rules (ERROR: missing, wrong valueType,
 * outside `values`; WARNING: undeclared key, deprecated setting), then the connector's own checks
 * (ERROR), including the host policy. `where` names the problems: the body's items or the stored ones.
 */
export function parameterProblems(
  type: ConnectionTypeRow,
  values: Readonly<Record<string, string>>,
  environment: ConnectorEnvironment,
  where: { prefix: string; indexOf: (key: string) => number | undefined },
): Problem[] {
  const connector = findConnector(type.connectorId);
  if (!connector) return [{ name: `${where.prefix}connectionTypeId`, message: `The connector "${type.connectorId}" of this type is not available in this service`, level: "ERROR" }];
  const findings = checkConnectionParameters(type.parameters, connector.parameters, values);
  const failed = new Set(findings.filter((f) => f.level === "ERROR").map((f) => f.key));
  for (const problem of connector.checkParameters(values, environment)) {
    if (!failed.has(problem.key)) findings.push({ ...problem, level: "ERROR" });
    failed.add(problem.key);
  }
  return findings.map(({ key, level, message }) => {
    const index = where.indexOf(key);
    return { name: `${where.prefix}allParameters${index === undefined ? "" : `[${index}]`}`, message: index === undefined ? `${key}: ${message}` : message, level };
  });
}

/** Throws the 400 of the problems that block: every ERROR, and the WARNINGs unless suppressed. */
export function throwIfBlocking(problems: readonly Problem[], suppressWarnings: boolean): void {
  const blocking = suppressWarnings ? problems.filter((p) => p.level === "ERROR") : problems;
  if (blocking.length > 0) throw invalidRequest(blocking);
}

/** The secret keys of a connection of this type: PASSWORD in the type, or secret for its connector. */
export function secretKeysTest(type: ConnectionTypeRow): (key: string) => boolean {
  const descriptors = findConnector(type.connectorId)?.parameters ?? [];
  return (key) => isSecretKey(key, type.parameters, descriptors);
}

/**
 * The parameters as stored: secret values sealed (a kept one stays sealed, sealed again under the
 * current key if an older one sealed it), the others in clear. Sealing needs CONNECTION_SECRETS_KEY:
 * without it a secret value is refused (409), never stored in clear.
 */
export async function parametersToStore(
  given: readonly GivenParameter[],
  values: Readonly<Record<string, string>>,
  stored: readonly StoredParameter[],
  isSecret: (key: string) => boolean,
  place: Omit<SecretPlace, "key">,
  secrets: ConnectionSecrets,
): Promise<StoredParameter[]> {
  const result: StoredParameter[] = [];
  for (const { key, value, systemAccess } of given) {
    const kept = value === undefined ? stored.find((p) => p.key === key) : undefined;
    const plain = values[key] ?? "";
    if (kept?.sealed !== undefined && (await secrets.sealedWithCurrentKey(kept.sealed))) {
      result.push({ key, systemAccess, sealed: kept.sealed });
    } else if ((isSecret(key) || kept?.sealed !== undefined) && plain !== "") {
      if (!secrets.configured) {
        throw new ApiError("CONNECTION_SECRETS_UNAVAILABLE", `"${key}" is secret, and this service cannot store secrets: its operator has not set CONNECTION_SECRETS_KEY`);
      }
      result.push({ key, systemAccess, sealed: await secrets.seal(plain, { ...place, key }) });
    } else {
      result.push({ key, systemAccess, value: plain });
    }
  }
  return result;
}

/** `projectId`: the project of the connection's folder, if it has one. */
export function toConnection(connection: ConnectionRow, type: ConnectionTypeRow, projectId: string | null) {
  const connector: ConnectorDefinition | undefined = findConnector(type.connectorId);
  const isSecret = secretKeysTest(type);
  return {
    id: connection.id,
    name: connection.name,
    type: type.type,
    subStorageType: type.subStorageType,
    accountId: connection.accountId,
    creatingUserName: connection.creatingUserName,
    disabled: connection.disabled,
    connectionTypeId: connection.connectionTypeId,
    allParameters: connection.parameters.map(({ key, value, sealed, systemAccess }) =>
      sealed !== undefined || isSecret(key) ? { key, systemAccess } : { key, value: value ?? "", systemAccess },
    ),
    folderId: connection.folderId ?? null,
    projectId,
    originId: null,
    internal: connector?.internal === true,
    features: (connector?.features ?? []).map((name) => ({ name, params: {}, status: "ENABLED" as const })),
    ...auditOut(connection),
  };
}

function invalidRequest(problems: readonly Problem[]): ApiError {
  const summary = problems.length === 1 ? `${problems[0]!.name}: ${problems[0]!.message}` : `${problems.length} problems, the first: ${problems[0]!.name}: ${problems[0]!.message}`;
  return new ApiError("VALIDATION_FAILED", `Invalid connection: ${summary}`, { problems: [...problems] });
}

const invalid = (name: string, message: string) => invalidRequest([{ name, message, level: "ERROR" }]);
