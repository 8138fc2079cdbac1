/**
 * Splitting text into pieces of bounded UTF-8 size, on character boundaries: a piece never ends
 * between the two halves of a surrogate pair, so every piece is valid text on its own and the
 * pieces joined are the text again. Used to store large JSON text as rows that each stay under
 * the database's limit on a string's size in bytes.
 */

/** UTF-8 bytes of the character starting at `i`, and how many UTF-16 code units it spans. */
function characterAt(text: string, i: number): [bytes: number, units: number] {
  const code = text.charCodeAt(i);
  if (code < 0x80) return [1, 1];
  if (code < 0x800) return [2, 1];
  if (code >= 0xd800 && code <= 0xdbff) {
    const low = text.charCodeAt(i + 1);
    if (low >= 0xdc00 && low <= 0xdfff) return [4, 2];
  }
  // Any other code unit, a lone surrogate included (encoded as U+FFFD), takes 3 bytes.
  return [3, 1];
}

/** The length of `text` in UTF-8 bytes, as TextEncoder would encode it. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; ) {
    const [size, units] = characterAt(text, i);
    bytes += size;
    i += units;
  }
  return bytes;
}

export interface Utf8Chunks {
  /** The pieces, in order; at least one (an empty text gives one empty piece). */
  chunks: string[];
  /** The whole text's length in UTF-8 bytes. */
  bytes: number;
}

/**
 * Splits `text` greedily into pieces of at most `maxBytes` UTF-8 bytes each, cutting only between
 * characters. The pieces are substrings of `text` (engines share the original's memory for them).
 */
export function splitUtf8(text: string, maxBytes: number): Utf8Chunks {
  if (!Number.isInteger(maxBytes) || maxBytes < 4) throw new RangeError("maxBytes must be an integer of at least 4 (the longest UTF-8 character)");
  const chunks: string[] = [];
  let bytes = 0;
  let chunkStart = 0;
  let chunkBytes = 0;
  for (let i = 0; i < text.length; ) {
    const [size, units] = characterAt(text, i);
    if (chunkBytes + size > maxBytes) {
      chunks.push(text.slice(chunkStart, i));
      chunkStart = i;
      chunkBytes = 0;
    }
    chunkBytes += size;
    bytes += size;
    i += units;
  }
  chunks.push(text.slice(chunkStart));
  return { chunks, bytes };
}
