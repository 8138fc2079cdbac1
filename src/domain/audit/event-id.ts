/**
 * Event ids sortable by time (ULID layout: 48 bits of milliseconds, then 80 random bits, in
 * Crockford base32, 26 characters). Made in the application, so the events of one batch carry
 * their ids before D1 sees them; ids made in one isolate in the same millisecond increase, so the
 * events of one request keep their order. Comparing ids compares times: time filters and the
 * retention prune use the primary key alone.
 */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;

let lastTime = -1;
let lastRandom: number[] = [];

function encodeTime(ms: number): string {
  let out = "";
  for (let i = 0, t = ms; i < TIME_CHARS; i++, t = Math.floor(t / 32)) out = ALPHABET[t % 32] + out;
  return out;
}

// Loops, not spreads and callbacks: every write makes at least one id.
function randomDigits(): number[] {
  const bytes = crypto.getRandomValues(new Uint8Array(RANDOM_CHARS));
  const digits: number[] = [];
  for (let i = 0; i < RANDOM_CHARS; i++) digits.push(bytes[i]! % 32);
  return digits;
}

/** Adds one to a base-32 digit string; a wrap-around (2^80 ids in a millisecond) cannot happen in practice. */
function increment(digits: number[]): number[] {
  const next = [...digits];
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i]! < 31) {
      next[i]!++;
      return next;
    }
    next[i] = 0;
  }
  return next;
}

export function newEventId(now = Date.now()): string {
  if (now <= lastTime) {
    lastRandom = increment(lastRandom);
  } else {
    lastTime = now;
    lastRandom = randomDigits();
  }
  let id = encodeTime(lastTime);
  for (const digit of lastRandom) id += ALPHABET[digit];
  return id;
}

/** The smallest id of the millisecond `ms`: ids of events at or after it compare >= this. */
export function eventIdFloor(ms: number): string {
  return encodeTime(Math.max(0, Math.floor(ms))) + "0".repeat(RANDOM_CHARS);
}

/** The time an event id carries. */
export function timeOfEventId(id: string): number {
  let ms = 0;
  for (const ch of id.slice(0, TIME_CHARS)) ms = ms * 32 + ALPHABET.indexOf(ch);
  return ms;
}
