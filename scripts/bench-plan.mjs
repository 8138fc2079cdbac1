// Turns the D1 statements the service made for two requests of one operation (recorded with
// EXPOSE_D1_STATEMENTS, src/db/round-trips.ts) into a plan the floor Worker (scripts/bench-floor/)
// replays for every request: the same SQL, in the same round trips (single statements or one
// batch), with the same bindings. A binding that differs between the two requests is a value of
// that request, which the floor must make anew so that it does the same work and succeeds every
// time (a write's fresh id, name, revision or timestamp). Each such value is, in this order:
// - a value the request read in an earlier round trip (the revision a guarded write re-sends): the
//   floor takes it from its own read, same statement, row and column;
// - a value of the request itself (a name in the body, an id in the path): the floor takes it from
//   the request it receives, which is the service's request, sent to the floor;
// - otherwise made by the floor per request, of the same shape: a UUID, the time now (ISO text or
//   epoch ms), random bytes, or a unique word.
// Inside text (a JSON body column) the differing words are found and replaced one by one, so a
// name or id inside a document is substituted as it is in its own column, and a word read earlier
// comes from the floor's own read. One value maps to one
// replacement throughout a request, so an id made for a row is the same in every statement that names it.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const WORD = /[A-Za-z0-9_.:-]+/g;

/** The request's own values, by where they are: path segments, query members, body leaves. */
export function requestInputs({ path, body }) {
  const url = new URL(path, "http://bench.invalid");
  const inputs = new Map();
  url.pathname.split("/").forEach((segment, i) => segment && inputs.set(`path:${i}`, decodeURIComponent(segment)));
  for (const [name, value] of url.searchParams) inputs.set(`query:${name}`, value);
  const walk = (node, pointer) => {
    if (node !== null && typeof node === "object") for (const [k, v] of Object.entries(node)) walk(v, [...pointer, k]);
    else if (typeof node === "string" || typeof node === "number") inputs.set(`body:${JSON.stringify(pointer)}`, node);
  };
  if (body !== undefined) walk(body, []);
  return inputs;
}

/** Where the same value is, in the two requests: a location holding `a` in A and `b` in B. */
function inputHolding(inputsA, inputsB, a, b) {
  for (const [location, value] of inputsA) if (value === a && inputsB.get(location) === b) return location;
  return undefined;
}

/** A cell of an earlier round trip's rows holding `a` in A and `b` in B: [trip, statement, row, key]. */
function readHolding(tripsA, tripsB, before, a, b) {
  for (let t = 0; t < before; t++) {
    const rowsA = tripsA[t].rows ?? [];
    for (let s = 0; s < rowsA.length; s++) {
      for (let r = 0; r < rowsA[s].length; r++) {
        const row = rowsA[s][r];
        if (row === null || typeof row !== "object") continue;
        for (const [key, value] of Object.entries(row)) {
          if (value === a && tripsB[t].rows?.[s]?.[r]?.[key] === b) return [t, s, r, key];
        }
      }
    }
  }
  return undefined;
}

const sameShape = (a, b) =>
  a.length === b.length && a.every((trip, t) => trip.call === b[t].call && trip.statements.length === b[t].statements.length && trip.statements.every((s, i) => s.sql === b[t].statements[i].sql && s.params.length === b[t].statements[i].params.length));

/**
 * The floor's plan from two recorded requests: `{ trips, tokens, varies }`. A param is
 * `{ c: value }` (the same every time), `{ read: [t, s, r, key] }`, `{ k: token }` (a whole value made
 * per request), or `{ t: [text | { k: token } | { read }, ...] }` (text with words made per request or read); `tokens`
 * says how the floor makes each token: `{ input: location }`, `{ uuid }`, `{ iso }`, `{ ms }`,
 * `{ bytes: n }` or `{ unique: word }`.
 */
export function compilePlan(sampleA, sampleB) {
  const tripsA = sampleA.trips;
  const tripsB = sampleB.trips;
  if (!sameShape(tripsA, tripsB)) {
    return { trips: tripsA.map((trip) => ({ call: trip.call, session: trip.session, statements: trip.statements.map((s) => ({ sql: s.sql, params: s.params.map((c) => ({ c })) })) })), tokens: {}, varies: true };
  }
  const inputsA = requestInputs(sampleA.request);
  const inputsB = requestInputs(sampleB.request);
  const tokens = {};
  const tokenFor = (a, b) => {
    const key = typeof a === "string" ? a : JSON.stringify(a);
    if (tokens[key]) return key;
    const input = inputHolding(inputsA, inputsB, a, b);
    if (input) tokens[key] = { input };
    else if (typeof a === "number") tokens[key] = Math.abs(a - Date.now()) < 1e10 ? { ms: true } : { unique: String(a) };
    else if (UUID.test(a)) tokens[key] = { uuid: true };
    else if (ISO_TIME.test(a)) tokens[key] = { iso: true };
    else tokens[key] = { unique: a };
    return key;
  };

  const param = (a, b, t) => {
    if (JSON.stringify(a) === JSON.stringify(b)) return { c: a };
    const read = readHolding(tripsA, tripsB, t, a, b);
    if (read) return { read };
    if (a !== null && typeof a === "object" && "$bytes" in a) {
      const key = `bytes:${a.$bytes}`;
      tokens[key] ??= { bytes: atob(a.$bytes).length };
      return { k: key };
    }
    if (typeof a === "number" && typeof b === "number") {
      if (Math.abs(a - Date.now()) < 1e10 || inputHolding(inputsA, inputsB, a, b)) return { k: tokenFor(a, b) };
      return { c: a };
    }
    if (typeof a !== "string" || typeof b !== "string") return { c: a };
    if (UUID.test(a) || ISO_TIME.test(a) || inputHolding(inputsA, inputsB, a, b)) return { k: tokenFor(a, b) };
    const wordsA = [...a.matchAll(WORD)];
    const wordsB = [...b.matchAll(WORD)];
    const parts = [];
    let at = 0;
    const text = (until) => {
      if (until > at) parts.push(a.slice(at, until));
    };
    if (wordsA.length === wordsB.length) {
      wordsA.forEach((w, i) => {
        if (w[0] === wordsB[i][0]) return;
        text(w.index);
        // A word read earlier (the revision inside a JSON If-Match list) is the floor's own read, as a whole value is.
        const wordRead = readHolding(tripsA, tripsB, t, w[0], wordsB[i][0]);
        parts.push(wordRead ? { read: wordRead } : { k: tokenFor(w[0], wordsB[i][0]) });
        at = w.index + w[0].length;
      });
    } else {
      // The texts differ in their words' count: the differing middle becomes one unique word.
      let prefix = 0;
      while (prefix < a.length && a[prefix] === b[prefix]) prefix++;
      let suffix = 0;
      while (suffix < a.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
      text(prefix);
      parts.push({ k: tokenFor(a.slice(prefix, a.length - suffix) || "x", null) });
      at = a.length - suffix;
    }
    text(a.length);
    return { t: parts };
  };

  const trips = tripsA.map((trip, t) => ({
    call: trip.call,
    session: trip.session,
    statements: trip.statements.map((s, i) => ({ sql: s.sql, params: s.params.map((a, p) => param(a, tripsB[t].statements[i].params[p], t)) })),
  }));
  return { trips, tokens, varies: false };
}
