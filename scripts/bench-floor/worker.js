// The floor of every route (npm run bench): a bare Worker that replays, for each request, the D1
// statements the service made for that operation (same SQL, same bindings, same rows, the same
// round trips: single statements or one batch), and nothing else: no routing framework, no
// authentication, no validation, no error mapping. The bench registers one plan per operation
// (scripts/bench-plan.mjs says how a plan makes per-request values anew) and sends the floor the
// service's own requests at /<plan id><the service's path>. Where a route's real work is
// computation, the floor also does it with the same pure module of src/domain/ (DOMAIN_WORK), so
// the ratio measures what the service adds around it. An operation with no D1 statement at all gets
// the service's own answer back (its status, headers and bytes), as a static Worker would give it.
// Every answer carries the service's headers, as recorded (scripts/bench.mjs, headersToRepeat), and is
// as long as the service's (ofLength).
import { listPeriods, periodsAt } from "../../src/domain/calendar/index.ts";
import { checkExpressionTree, expressionContext, namesIn, parseExpression } from "../../src/domain/expression/index.ts";
import { hashPassword } from "../../src/domain/passwords.ts";
import { dialectOf, materializedViewQuery, sqlDefinition, sqlSourceOf, tableOfEntities } from "../../src/domain/sql/index.ts";
import { WebhookSecrets } from "../../src/domain/webhooks/secret.ts";
import { newSigningSecret } from "../../src/domain/webhooks/webhooks.ts";

const plans = new Map();
let made = 0;

// A request that took SLOW_MS or more as this Worker saw it (its clock moves at I/O) is logged, one
// line, as the service's request log gives every request's duration: the two sides' stops can be
// compared row by row (docs/performance-history.md, "Last full runs"). Two clock reads a request otherwise.
const SLOW_MS = 100;

export default {
  async fetch(request, env) {
    const began = Date.now();
    const response = await replay(request, env);
    const took = Date.now() - began;
    if (took >= SLOW_MS) console.log(JSON.stringify({ message: "slow", path: new URL(request.url).pathname, durationMs: took }));
    return response;
  },
};

async function replay(request, env) {
  const url = new URL(request.url);
  if (url.pathname === "/__plans" && request.method === "PUT") {
    for (const [id, plan] of Object.entries(await request.json())) plans.set(id, plan);
    return new Response("registered");
  }
  if (url.pathname === "/__domain-work") return Response.json(Object.keys(DOMAIN_WORK));
  const slash = url.pathname.indexOf("/", 1);
  const plan = plans.get(url.pathname.slice(1, slash < 0 ? undefined : slash));
  const text = request.body === null ? "" : await request.text();
  if (!plan) return new Response("no plan", { status: 404 });
  const path = slash < 0 ? "/" : url.pathname.slice(slash);
  let body;
  const parsedBody = () => (body ??= text ? JSON.parse(text) : null);

  const values = new Map();
  const token = (key) => {
    if (values.has(key)) return values.get(key);
    const spec = plan.tokens[key];
    let value;
    if (spec.input) value = inputAt(spec.input, path, url.searchParams, parsedBody);
    else if (spec.uuid) value = crypto.randomUUID();
    else if (spec.iso) value = new Date().toISOString();
    else if (spec.ms) value = Date.now();
    else if (spec.bytes) value = crypto.getRandomValues(new Uint8Array(spec.bytes));
    else value = `${spec.unique}${(made++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    values.set(key, value);
    return value;
  };
  const rows = [];
  const readAt = ([t, s, r, key]) => rows[t]?.[s]?.[r]?.[key] ?? null;
  const param = (p) => {
    if ("c" in p) return bindable(p.c);
    if (p.read) return readAt(p.read);
    if (p.k !== undefined) return token(p.k);
    return p.t.map((part) => (typeof part === "string" ? part : String(part.read ? readAt(part.read) : token(part.k)))).join("");
  };

  if (plan.answer) return new Response(plan.answer.body, { status: plan.answer.status, headers: plan.answer.headers });
  // The service runs its statements in a D1 session (read replication, src/db/session.ts), opened
  // where the recorded one started; the floor too, and answers its bookmark as the service does.
  const sessions = new Map();
  const sessionFor = (start = "first-unconstrained") => {
    if (!sessions.has(start)) sessions.set(start, env.DB.withSession(start === "bookmark" ? (request.headers.get("X-D1-Bookmark") ?? "first-unconstrained") : start));
    return sessions.get(start);
  };
  try {
    for (const trip of plan.trips) {
      const db = sessionFor(trip.session);
      const statements = trip.statements.map((s) => db.prepare(s.sql).bind(...s.params.map(param)));
      switch (trip.call) {
        case "batch":
          rows.push((await db.batch(statements)).map((result) => result.results ?? []));
          break;
        case "first": {
          const row = await statements[0].first();
          rows.push([row === null ? [] : [row]]);
          break;
        }
        case "raw":
          rows.push([await statements[0].raw()]);
          break;
        case "rawNames":
          rows.push([await statements[0].raw({ columnNames: true })]);
          break;
        case "exec":
          await env.DB.exec(trip.statements[0].sql);
          rows.push([[]]);
          break;
        default:
          rows.push([(await statements[0][trip.call]()).results ?? []]);
      }
    }
    const work = DOMAIN_WORK[plan.key];
    const answer = work ? await work({ rows, plan, query: url.searchParams, body: parsedBody }) : rows;
    const bookmark = [...sessions.values()].at(-1)?.getBookmark();
    // The service's status and headers (its Content-Type among them: the local runtime brotli-compresses
    // an application/json answer for a client that accepts it, as Cloudflare's edge does, and not the
    // service's vendor types). A 204 has no body; any other answer is what was read, as JSON, as long as the service's.
    const headers = { ...plan.headers, ...(bookmark && { "x-d1-bookmark": bookmark }) };
    if (plan.status === 204) return new Response(null, { status: 204, headers });
    return new Response(ofLength(JSON.stringify(answer), plan.bodyLength), { status: plan.status, headers: { "content-type": "application/json", ...headers } });
  } catch (error) {
    return new Response(String(error?.message ?? error), { status: 500 });
  }
}

/**
 * The floor's answer (the rows it read, as JSON) made as long as the service's (`plan.bodyLength`: as
 * recorded, or for a GET as read at its row's turn, scripts/bench.mjs matchAnswerLength): padded
 * with spaces, which JSON allows after a value, or cut. The transit of an answer's bytes (the
 * runtime's framing, the dev proxy, the client's read) costs every request whoever made them, as its
 * headers do; making them (the service's answer shape) stays on the service's side. Lengths in
 * UTF-16 units, as both are strings (the bytes where the text is ASCII, as nearly all of it is).
 */
function ofLength(text, length = text.length) {
  if (text.length === length) return text;
  return text.length > length ? text.slice(0, length) : text + " ".repeat(length - text.length);
}

/** A recorded constant as D1 binds it (bytes were recorded as base64). */
function bindable(value) {
  if (value !== null && typeof value === "object" && "$bytes" in value) return Uint8Array.from(atob(value.$bytes), (ch) => ch.charCodeAt(0));
  return value;
}

/** A value of the request: `path:<segment index>`, `query:<name>` or `body:<JSON array of keys>`. */
function inputAt(location, path, query, parsedBody) {
  const colon = location.indexOf(":");
  const where = location.slice(0, colon);
  const what = location.slice(colon + 1);
  if (where === "path") return decodeURIComponent(path.split("/")[Number(what)]);
  if (where === "query") return query.get(what);
  let node = parsedBody();
  for (const key of JSON.parse(what)) node = node?.[key];
  return node ?? null;
}

/** The row a raw() read answered, as an object, by the column list of its SELECT. */
function named(sql, row) {
  if (!Array.isArray(row)) return row;
  const list = /^select (.*?) from /is.exec(sql)?.[1] ?? "";
  const names = [...list.matchAll(/"([a-z0-9_]+)"\s*(?:,|$)/g)].map((m) => m[1]);
  return Object.fromEntries(names.map((name, i) => [name, row[i]]));
}

/** The calendar a periods route read (its first row), as the definition the period arithmetic takes. */
function calendarOf({ rows, plan }) {
  const row = named(plan.trips[0].statements[0].sql, rows[0]?.[0]?.[0]);
  if (!row) return { type: "MONTH_SHIFT", monthShift: 0 };
  if (row.type === "FISCAL_445") return { type: "FISCAL_445", fiscal445: typeof row.fiscal445 === "string" ? JSON.parse(row.fiscal445) : row.fiscal445 };
  return { type: "MONTH_SHIFT", monthShift: row.month_shift };
}

/** The items an expression route read (batch: the source, then the items by name) as the checker's context. */
function itemsContext({ rows }) {
  return expressionContext((rows[0]?.[1] ?? []).map((item) => ({ name: item.name, kind: item.kind, dataType: item.data_type })));
}

function checkExpression(work, level) {
  const parsed = parseExpression(work.body().expression);
  if (parsed.ok) namesIn(parsed.ast);
  return parsed.ok ? checkExpressionTree(parsed.ast, itemsContext(work), level) : parsed;
}

/**
 * A view's SQL from its definition and the reads of its write's first batch (from `first`: the
 * source's items, its tables, its connector), as the service makes it: the definition's formulas
 * parsed for their names, the items' expressions parsed, then the query generated.
 */
function viewQuery({ rows, body }, first) {
  const definition = body().definition;
  for (const metric of definition.metrics ?? []) {
    if (metric.formula === undefined) continue;
    const parsed = parseExpression(metric.formula);
    if (parsed.ok) namesIn(parsed.ast);
  }
  const [items = [], tables = [], connector = []] = rows[0]?.slice(first, first + 3) ?? [];
  const found = tableOfEntities(tables.map((t) => t.data_entity_id));
  if (!found.table) return { definitionQuery: null };
  const source = sqlSourceOf(found.table, items.map((i) => ({ name: i.name, kind: i.kind, dataType: i.data_type, body: JSON.parse(i.body) })));
  return { definitionQuery: materializedViewQuery(sqlDefinition(definition), source, dialectOf(connector[0]?.connector_id)) };
}

/** Operations whose real work is computation: the same pure module the service calls. */
const DOMAIN_WORK = {
  "GET /api/calendars/{calendarId}/periods": (work) => {
    const result = listPeriods(calendarOf(work), work.query.get("from"), work.query.get("to"), work.query.get("type"));
    return { content: result.ok ? result.periods : [] };
  },
  "GET /api/calendars/{calendarId}/periods/at": (work) => periodsAt(calendarOf(work), work.query.get("date")),
  "POST /api/sources/{sourceId}/custom-metrics/validate": (work) => checkExpression(work, "aggregate"),
  "POST /api/sources/{sourceId}/fields/validate": (work) => checkExpression(work, "row"),
  // A view's definition becomes SQL (src/domain/sql); the create's first batch reads the items at 1, the PUT's at 3.
  "POST /api/materialized-views": (work) => viewQuery(work, 1),
  "PUT /api/materialized-views/{id}": (work) => viewQuery(work, 3),
  // A user's password is stored as PBKDF2-SHA-256 of 100,000 iterations: about 14 ms of CPU here, the route's real work.
  "POST /api/users": (work) => hashPassword(work.body().password).then(() => ({ hashed: true })),
  "PUT /api/users/{id}": (work) => (work.body()?.password ? hashPassword(work.body().password).then(() => ({ hashed: true })) : work.rows),
  // A subscription's signing secret is made and sealed (AES-256-GCM) before its row is written, on creation and rotation alike.
  "POST /api/webhooks": (work) => newSealedSecret(work.rows),
  "POST /api/webhooks/{id}/secret": (work) => newSealedSecret(work.rows),
};

// As the service keeps its sealer: one per isolate, its key derived once. Any key costs the same.
const webhookSecrets = new WebhookSecrets(["bench-floor-key"]);

async function newSealedSecret(rows) {
  const secret = newSigningSecret();
  return { rows, secret, sealed: await webhookSecrets.seal(secret, crypto.randomUUID()) };
}
