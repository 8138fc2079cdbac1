import type { Context } from "hono";
import { storedValues } from "../connections/connections.model";
import { connectionSecrets } from "../connections/secrets";
import type { ConnectionRow } from "../../db/connections";
import { PassphraseSealer, passphraseRefusal, secretPlace, type PassphraseSealing } from "../../domain/transfer/passphrase-sealing";
import { ApiError, type Problem } from "../../lib/errors";
import type { AppEnv } from "../../lib/types";

/**
 * Secret connection parameters in a bundle, sealed under the caller's X-Export-Passphrase
 * (docs/export-import.md): the export seals the stored values under it, the import opens them and
 * the connection's write seals them again with this deployment's CONNECTION_SECRETS_KEY.
 */

/** The request's passphrase; undefined without the header. Too short: 400 INVALID_PASSPHRASE. */
export function passphraseOf(c: Context<AppEnv>): string | undefined {
  const passphrase = c.req.header("X-Export-Passphrase");
  if (passphrase === undefined) return undefined;
  const refusal = passphraseRefusal(passphrase);
  if (refusal) throw new ApiError("INVALID_PASSPHRASE", `X-Export-Passphrase: ${refusal}`);
  return passphrase;
}

interface ShownParameter {
  key: string;
  value?: string;
  systemAccess: boolean;
}

/** The export's connections with each secret value (shown without one) sealed under the passphrase, and how. Rows by name (unique in an account). */
export async function sealSecrets<C extends { name: string; allParameters: ShownParameter[] }>(
  c: Context<AppEnv>,
  passphrase: string,
  accountId: string,
  shown: C[],
  rows: readonly ConnectionRow[],
): Promise<{ connections: (C & { allParameters: (ShownParameter & { sealedValue?: string })[] })[]; secretsSealing: PassphraseSealing }> {
  const sealer = await PassphraseSealer.forExport(passphrase, accountId);
  const connections = [];
  for (const connection of shown) {
    const values = await storedValues(rows.find((r) => r.name === connection.name)!, connectionSecrets(c.env));
    const allParameters = [];
    for (const p of connection.allParameters) {
      allParameters.push(p.value === undefined && values[p.key] ? { ...p, sealedValue: await sealer.seal(values[p.key]!, secretPlace(connection.name, p.key)) } : p);
    }
    connections.push({ ...connection, allParameters });
  }
  return { connections, secretsSealing: sealer.sealing };
}

interface BundledParameter {
  key: string;
  value?: string;
  sealedValue?: string;
}

/**
 * Opens the bundle's sealed values in place (each becomes its parameter's `value`); answers the
 * problems, by connection index, of those it cannot open.
 */
export async function openSealedSecrets(
  c: Context<AppEnv>,
  bundle: { secretsSealing?: PassphraseSealing; connections: { name: string; allParameters: BundledParameter[] }[] },
): Promise<Map<number, Problem[]>> {
  const problems = new Map<number, Problem[]>();
  const add = (index: number, name: string, message: string) => problems.set(index, [...(problems.get(index) ?? []), { name, message, level: "ERROR" }]);
  const passphrase = passphraseOf(c);
  if (!bundle.connections.some((bc) => bc.allParameters.some((p) => p.sealedValue !== undefined))) return problems;
  const sealer = passphrase !== undefined && bundle.secretsSealing ? await PassphraseSealer.open(passphrase, bundle.secretsSealing) : undefined;
  for (const [index, connection] of bundle.connections.entries()) {
    for (const [i, p] of connection.allParameters.entries()) {
      if (p.sealedValue === undefined) continue;
      const at = `body.connections[${index}].allParameters[${i}]`;
      if (p.value !== undefined) add(index, at, "Give a value or a sealedValue, not both");
      else if (passphrase === undefined) add(index, `${at}.sealedValue`, "Sealed under an export passphrase: send it in X-Export-Passphrase");
      else if (!sealer) add(index, "body.secretsSealing", bundle.secretsSealing ? "Not a sealing this service makes (PBKDF2-HMAC-SHA-256, 100000 iterations, a 16-byte salt, AES-256-GCM)" : "Missing: the bundle has sealed values");
      else {
        const value = await sealer.unseal(p.sealedValue, secretPlace(connection.name, p.key));
        if (value === undefined) add(index, `${at}.sealedValue`, "Does not open with this passphrase (or was altered, or moved to another connection or parameter)");
        else p.value = value;
      }
    }
  }
  return problems;
}
