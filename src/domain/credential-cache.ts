/**
 * A per-isolate cache of verified Basic credentials, so that a request does not pay a full
 * PBKDF2 derivation every time the same client sends the same password.
 *
 * Keys are SHA-256 digests of "username NUL password", never the password itself.
 * Entries expire after `ttlMs`: that is the window in which another isolate may still accept
 * a password, user or account that was changed elsewhere. The isolate that makes the change
 * invalidates its own entries at once.
 */
export interface CachedIdentity {
  userId: string;
  accountId: string;
  groupIds: readonly string[];
}

interface Entry<T> {
  value: T;
  expiresAt: number;
}

export class CredentialCache<T extends CachedIdentity> {
  readonly #entries = new Map<string, Entry<T>>();

  constructor(
    private readonly maxEntries = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: T, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: the first key is the oldest entry.
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  invalidateUser(userId: string): void {
    this.#deleteWhere((v) => v.userId === userId);
  }

  /** The members of a group whose privileges changed, or that was deleted; nobody else. */
  invalidateGroup(groupId: string): void {
    this.#deleteWhere((v) => v.groupIds.includes(groupId));
  }

  invalidateAccount(accountId: string): void {
    this.#deleteWhere((v) => v.accountId === accountId);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }

  #deleteWhere(predicate: (value: T) => boolean): void {
    for (const [key, entry] of this.#entries) if (predicate(entry.value)) this.#entries.delete(key);
  }
}
