import type { MiddlewareHandler } from "hono";
import { bodyLimit as honoBodyLimit } from "hono/body-limit";
import { ApiError } from "../../lib/errors";
import type { AppEnv } from "../../lib/types";

/**
 * Caps request bodies at MAX_BODY_BYTES (413). The local runtime enforces no size limit of its
 * own, so this is the only cap there is in development and tests.
 */
export const bodyLimit: MiddlewareHandler<AppEnv> = (c, next) => {
  const maxSize = c.get("config").maxBodyBytes;
  return honoBodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError("PAYLOAD_TOO_LARGE", `Request body is larger than ${maxSize} bytes`);
    },
  })(c, next);
};
