/**
 * Opaque page tokens for keyset pagination. A token names the key of the row a page
 * starts after (next) or ends before (previous); it is not an offset, so a page costs
 * the same however deep it is.
 */
export interface PageCursor {
  direction: "next" | "previous";
  key: string;
}

export function encodePageToken(cursor: PageCursor): string {
  const json = JSON.stringify({ d: cursor.direction === "next" ? "n" : "p", k: cursor.key });
  return btoa(String.fromCharCode(...new TextEncoder().encode(json)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** Returns undefined for anything that is not a token this service issued. */
export function decodePageToken(token: string): PageCursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(token)) return undefined;
  try {
    const binary = atob(token.replace(/-/g, "+").replace(/_/g, "/"));
    const json = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const { d, k } = parsed as { d?: unknown; k?: unknown };
    if ((d !== "n" && d !== "p") || typeof k !== "string") return undefined;
    return { direction: d === "n" ? "next" : "previous", key: k };
  } catch {
    return undefined;
  }
}
