/** What the request log says of one request (src/middleware/request-log). */
export interface RequestLine {
  /** When the request arrived, in epoch milliseconds. */
  time: number;
  method: string;
  /** The path without its query string, a bearer token in it replaced by `{token}`. */
  path: string;
  status: number;
  durationMs: number;
  requestId: string;
  accountId?: string;
  /** The user's id, or "supervisor". */
  userId?: string;
  /** The trusted-access client, on the token endpoints. */
  clientId?: string;
  d1RoundTrips: number;
  /** Where D1 served the calls that said so (`primary@WNAM, replica@WEUR`; db/session.ts), when any did. */
  d1ServedBy?: string;
}

export type LogFormat = "json" | "pretty" | "none";

/** LOG_FORMAT: "pretty" for people at a terminal, "none" for no line but a 5xx's, anything else JSON. */
export function logFormatOf(raw: string | undefined): LogFormat {
  const form = raw?.trim().toLowerCase();
  return form === "pretty" || form === "none" ? form : "json";
}

export function formatRequestLine(line: RequestLine, format: LogFormat): string {
  if (format !== "pretty") return JSON.stringify({ level: line.status >= 500 ? "error" : "info", message: "request", ...line, time: new Date(line.time).toISOString() });
  // 14:02:03.123 GET /api/users 200 12 ms d1=1 account=… user=… id=…
  const who = [line.accountId && `account=${line.accountId}`, line.userId && `user=${line.userId}`, line.clientId && `client=${line.clientId}`].filter(Boolean).join(" ");
  const served = line.d1ServedBy ? ` served=${line.d1ServedBy.replaceAll(" ", "")}` : "";
  return `${new Date(line.time).toISOString().slice(11, 23)} ${line.method} ${line.path} ${line.status} ${line.durationMs} ms d1=${line.d1RoundTrips}${served}${who ? ` ${who}` : ""} id=${line.requestId}`;
}
