import { toBase64Url } from "../bytes";
import { fromBase64Url } from "../sealing";

/**
 * Secrets in an export bundle, sealed under a passphrase (X-Export-Passphrase) instead of the
 * deployment's CONNECTION_SECRETS_KEY, so that another deployment that is given the passphrase can
 * open them, and nobody else can.
 *
 * Key: PBKDF2-HMAC-SHA-256 of the passphrase, 100,000 iterations (the most Workers allow), over a
 * 16-byte salt carried in the bundle, giving 64 bytes: an AES-256-GCM key and an HMAC-SHA-256 key.
 * Value: base64url(IV (12 bytes) | ciphertext and tag), with the value's place (connection and
 * parameter name) as additional data, so a sealed value moved to another place does not open.
 *
 * The IV is synthetic, the first 12 bytes of HMAC(place, value), not random: the same account
 * exported twice with the same passphrase gives the same bytes (and the salt is derived from the
 * account, see `saltFor`). What that reveals is only that two sealed values of one place are equal.
 */
export const PASSPHRASE_KDF = { name: "PBKDF2-HMAC-SHA-256", iterations: 100_000 } as const;
export const MIN_PASSPHRASE_LENGTH = 12;

export interface PassphraseSealing {
  kdf: typeof PASSPHRASE_KDF.name;
  iterations: number;
  /** base64url, 16 bytes. */
  salt: string;
  cipher: "AES-256-GCM";
}

export class PassphraseSealer {
  private constructor(
    readonly sealing: PassphraseSealing,
    private readonly aesKey: CryptoKey,
    private readonly macKey: CryptoKey,
  ) {}

  /** The sealer of a bundle's secrets; `sealing` as the bundle states it (its salt), undefined when it is malformed. */
  static async open(passphrase: string, sealing: PassphraseSealing): Promise<PassphraseSealer | undefined> {
    const salt = fromBase64Url(sealing.salt);
    if (!salt || salt.length !== 16 || sealing.kdf !== PASSPHRASE_KDF.name || sealing.iterations !== PASSPHRASE_KDF.iterations || sealing.cipher !== "AES-256-GCM") return undefined;
    const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(passphrase), "PBKDF2", false, ["deriveBits"]);
    const bits = new Uint8Array(await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations: sealing.iterations }, material, 512));
    const aesKey = await crypto.subtle.importKey("raw", bits.subarray(0, 32), "AES-GCM", false, ["encrypt", "decrypt"]);
    const macKey = await crypto.subtle.importKey("raw", bits.subarray(32), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return new PassphraseSealer(sealing, aesKey, macKey);
  }

  /** A new sealer for an export; the salt is `saltFor` the exported account, so exports repeat byte for byte. */
  static async forExport(passphrase: string, accountId: string): Promise<PassphraseSealer> {
    const sealing: PassphraseSealing = { kdf: PASSPHRASE_KDF.name, iterations: PASSPHRASE_KDF.iterations, salt: toBase64Url(await saltFor(accountId)), cipher: "AES-256-GCM" };
    return (await PassphraseSealer.open(passphrase, sealing))!;
  }

  async seal(value: string, place: string): Promise<string> {
    const plaintext = new TextEncoder().encode(value);
    const additionalData = new TextEncoder().encode(place);
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", this.macKey, concat(additionalData, new Uint8Array([0]), plaintext)));
    const iv = mac.subarray(0, 12);
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData }, this.aesKey, plaintext));
    return toBase64Url(concat(iv, sealed));
  }

  /** The value, or undefined when the passphrase is wrong, the value altered or moved to another place. */
  async unseal(sealed: string, place: string): Promise<string | undefined> {
    const bytes = fromBase64Url(sealed);
    if (!bytes || bytes.length < 12 + 16) return undefined;
    try {
      const plaintext = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.subarray(0, 12), additionalData: new TextEncoder().encode(place) }, this.aesKey, bytes.subarray(12));
      return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(plaintext);
    } catch {
      return undefined;
    }
  }
}

/** Why a passphrase is refused, or undefined. */
export function passphraseRefusal(passphrase: string): string | undefined {
  if ([...passphrase].length < MIN_PASSPHRASE_LENGTH) return `The passphrase must have at least ${MIN_PASSPHRASE_LENGTH} characters`;
  return undefined;
}

/** The place of a connection's secret parameter, the additional data of its sealed value. */
export function secretPlace(connectionName: string, parameterName: string): string {
  return `connection\u0000${connectionName}\u0000${parameterName}`;
}

async function saltFor(accountId: string): Promise<Uint8Array> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`export-salt\u0000${accountId}`));
  return new Uint8Array(digest).subarray(0, 16);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) (out.set(part, at), (at += part.length));
  return out;
}
