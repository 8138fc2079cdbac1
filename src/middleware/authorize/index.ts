import type { MiddlewareHandler } from "hono";
import { isAllowed, type Access } from "../../domain/principal";
import { forbidden } from "../../lib/errors";
import type { AppEnv } from "../../lib/types";

/** Checks a route's declared access rule before validation and the handler run. */
export function authorize(access: Access): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (access.kind !== "public" && !isAllowed(c.get("principal"), access)) throw forbidden(refusal(access));
    await next();
  };
}

function refusal(access: Access): string {
  switch (access.kind) {
    case "supervisor":
      return "This operation needs supervisor authority";
    case "accountAdmin":
      return "This operation needs an administrator of the account";
    case "accountMember":
      return "This operation needs a user of an account; the supervisor belongs to none";
    case "privilege":
      return `This operation needs ${access.privilege}`;
    default:
      return "You do not have the privilege this operation needs";
  }
}
