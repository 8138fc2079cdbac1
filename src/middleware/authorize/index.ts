import type { MiddlewareHandler } from "hono";
import { isAllowed, type Access } from "../../domain/principal";
import { forbidden } from "../../lib/errors";
import type { AppEnv } from "../../lib/types";

/** Checks a route's declared access rule before validation and the handler run. */
export function authorize(access: Access): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (access.kind !== "public" && !isAllowed(c.get("principal"), access)) {
      throw forbidden(
        access.kind === "supervisor"
          ? "This operation needs supervisor authority"
          : access.kind === "accountAdmin"
            ? "This operation needs an administrator of the account"
            : `This operation needs ${(access as { privilege: string }).privilege}`,
      );
    }
    await next();
  };
}
