import type { Context } from "hono";
import type { AuditContext } from "../db/audit-trail";
import type { AuditActor } from "../domain/audit/event";
import type { AppEnv } from "./types";

/** Who made the request's changes: the user or supervisor signed in, or the trusted-access client on the token endpoints. */
export function actorOf(c: Context<AppEnv>): AuditActor {
  const client = c.get("client");
  if (client) return { type: "TRUSTED_CLIENT", id: client.clientId, name: client.clientName, authentication: "BASIC" };
  const principal = c.get("principal");
  if (principal.kind === "supervisor") return { type: "SUPERVISOR", id: principal.id, name: principal.name, authentication: "BASIC" };
  return { type: "USER", id: principal.id, name: principal.name, authentication: principal.via === "bearer" ? "BEARER" : "BASIC" };
}

/** The request an event belongs to. The address is CF-Connecting-IP, which Cloudflare sets and clients cannot forge. */
export function requestOf(c: Context<AppEnv>): Omit<AuditContext, "actor"> {
  return {
    requestId: c.get("requestId"),
    ip: c.req.header("CF-Connecting-IP")?.trim().slice(0, 64) || null,
    userAgent: c.req.header("User-Agent")?.slice(0, 512) || null,
  };
}
