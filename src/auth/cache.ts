import { CredentialCache } from "../domain/credential-cache";
import type { UserPrincipal } from "../domain/principal";

/**
 * This isolate's caches of who a credential is: verified Basic credentials, and the users of
 * bearer tokens (auth/bearer.ts; a cached token is still checked against D1 on every request,
 * on the request's first round trip). Handlers that change a user's password, groups or
 * privileges, a group's privileges, or an account call the invalidators below so the change takes
 * effect at once here, for exactly the users it affects (a group's description change evicts
 * nobody); other isolates see it when their entries expire (the TTL).
 */
export const credentialCache = new CredentialCache<UserPrincipal & { userId: string }>();
export const bearerCache = new CredentialCache<UserPrincipal & { userId: string }>();

const caches = [credentialCache, bearerCache];
export const invalidateUser = (userId: string) => caches.forEach((cache) => cache.invalidateUser(userId));
export const invalidateGroup = (groupId: string) => caches.forEach((cache) => cache.invalidateGroup(groupId));
export const invalidateAccount = (accountId: string) => caches.forEach((cache) => cache.invalidateAccount(accountId));
