import { CredentialCache } from "../domain/credential-cache";
import type { UserPrincipal } from "../domain/principal";

/**
 * This isolate's cache of verified Basic credentials. Handlers that change a user's password,
 * groups or privileges, a group's privileges, or an account call the invalidators below so the
 * change takes effect at once here, for exactly the users it affects (a group's description
 * change evicts nobody); other isolates see it when their entries expire (the TTL).
 */
export const credentialCache = new CredentialCache<UserPrincipal & { userId: string }>();

export const invalidateUser = (userId: string) => credentialCache.invalidateUser(userId);
export const invalidateGroup = (groupId: string) => credentialCache.invalidateGroup(groupId);
export const invalidateAccount = (accountId: string) => credentialCache.invalidateAccount(accountId);
