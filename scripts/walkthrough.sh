#!/usr/bin/env bash
# The README's walk-through (README, "Walk-through"): every resource of the API, one call at a time,
# against `npm start`, `npm run demo:postgres` and `npm run demo:webhooks`; ids are kept in shell variables. Needs curl and jq.
#   API=http://127.0.0.1:8787/api SUPERVISOR=supervisor:change-me-supervisor scripts/walkthrough.sh
set -euo pipefail
API=${API:-http://127.0.0.1:8787/api}; HOOKS=${HOOKS:-http://127.0.0.1:8790}
SUPERVISOR=${SUPERVISOR:-supervisor:change-me-supervisor}
ALICE=alice:alice-password
BOB=bob:bob-password
J='Content-Type: application/json'
PREVIEW='X-Enable-Preview: true'
BODY_FILE=$(mktemp); HEADER_FILE=$(mktemp); trap 'rm -f "$BODY_FILE" "$HEADER_FILE"' EXIT

# say TEXT: a step's heading.
say() { printf '\n# %s\n' "$*"; }
# call STATUS CURL_ARGS...: one request; prints "<status> <method> <url>" and the answer (cut to
# 300 characters), and fails unless the status is STATUS. The answer stays in $BODY, its headers
# in $HEADER_FILE. Each request sends the X-D1-Bookmark of the answer before it, so a read that
# follows a write sees it even on a database replica far from the primary (docs/replication.md).
BOOKMARK=
call() {
  local expected=$1; shift
  local status
  # Emptied first: curl leaves the file as it was when the answer has no body (a 304).
  : >"$BODY_FILE"
  status=$(curl -sS -o "$BODY_FILE" -D "$HEADER_FILE" -w '%{http_code} %{method} %{url_effective}' \
    ${BOOKMARK:+-H "X-D1-Bookmark: $BOOKMARK"} "$@")
  BODY=$(cat "$BODY_FILE")
  local answered; answered=$(header X-D1-Bookmark || true); BOOKMARK=${answered:-$BOOKMARK}
  printf '%s\n' "$status"
  if [ -n "$BODY" ]; then printf '  %s\n' "$(jq -c . <<<"$BODY" 2>/dev/null | cut -c1-300 || printf '%s' "${BODY:0:300}")"; fi
  if [ "${status%% *}" != "$expected" ]; then
    printf 'Expected %s, got %s.\n' "$expected" "${status%% *}" >&2
    exit 1
  fi
}
# field EXPR: a jq expression on the last answer.
field() { jq -r "$1" <<<"$BODY"; }
# header NAME: a header of the last answer.
header() { grep -i "^$1:" "$HEADER_FILE" | head -n1 | cut -d' ' -f2- | tr -d '\r'; }
# expect EXPR: fails unless the jq expression is true of the last answer.
expect() { jq -e "$1" <<<"$BODY" >/dev/null || { printf 'Expected %s of the answer.\n' "$1" >&2; exit 1; }; }

say "Accounts (supervisor only): the built-in Default account is there."
call 200 -u "$SUPERVISOR" "$API/accounts"
say "Create an account; it comes with an Administrators (ROLE_ADMIN) and a Users group."
call 201 -u "$SUPERVISOR" -H "$J" -d '{"name":"Acme"}' "$API/accounts"
ACCOUNT_ID=$(field .id)
say "E10: the account by name (the request carries the creation's X-D1-Bookmark: it reads its own write)."
call 200 -u "$SUPERVISOR" "$API/accounts/name/Acme"

say "Users: alice administers Acme; bob is a plain user."
call 201 -u "$SUPERVISOR" -H "$J" \
  -d '{"name":"alice","password":"alice-password","fullName":"Alice Admin","accountId":"'"$ACCOUNT_ID"'","groups":["Administrators"]}' "$API/users"
ALICE_ID=$(field .id)
call 201 -u "$SUPERVISOR" -H "$J" -d '{"name":"bob","password":"bob-password","accountId":"'"$ACCOUNT_ID"'"}' "$API/users"
BOB_ID=$(field .id)
say "Who am I: alice's effective privileges."
call 200 -u "$ALICE" "$API/user"
say "Groups: alice makes one that may edit formulas."
call 201 -u "$ALICE" -H "$J" -d '{"name":"Analysts","privileges":["ROLE_EDIT_FORMULAS"],"accountId":"'"$ACCOUNT_ID"'"}' "$API/groups"

say "Quotas: the supervisor sets Acme's; alice may read it (E17). Errors carry a stable errorCode."
call 201 -u "$SUPERVISOR" -X PUT -H "$J" -d '{"accountId":"'"$ACCOUNT_ID"'","quotas":[{"type":"SOURCE","limit":50}]}' "$API/quota"
call 200 -u "$ALICE" "$API/quota/$ACCOUNT_ID"
call 403 -u "$ALICE" "$API/accounts"

say "Sources: one with three native fields (and the metric Volume = count(*))."
call 201 -u "$ALICE" -H "$J" -d '{"name":"Flights","fields":[
  {"name":"carrier","origin":{"type":"NATIVE","nativeOrigin":{"originalName":"carrier","originalType":"VARCHAR"}}},
  {"name":"price","origin":{"type":"NATIVE","nativeOrigin":{"originalName":"price","originalType":"DECIMAL(10,2)"}}},
  {"name":"seats","origin":{"type":"NATIVE","nativeOrigin":{"originalName":"seats","originalType":"INT"}}}]}' "$API/sources"
FLIGHTS_ID=$(field .id)
say "Export and import: Acme as one bundle (names, not ids); its import into a new account planned (dry run), applied, applied again."
call 200 -u "$SUPERVISOR" "$API/accounts/$ACCOUNT_ID/export"; BUNDLE=$BODY
call 201 -u "$SUPERVISOR" -H "$J" -d '{"name":"Acme Staging"}' "$API/accounts"; STAGING_ID=$(field .id)
for RUN in '?dryRun=true' '' ''; do
  call 200 -u "$SUPERVISOR" -H "$J" --data-binary "$BUNDLE" "$API/accounts/$STAGING_ID/import$RUN"; field '.entries[] | "    \(.status) \(.type) \(.name // (.path // [] | join("/")))"'
done
expect 'all(.entries[]; .status == "UNCHANGED")'
say "Fields: E13 reads one; a derived field is typed from its expression (NUMBER)."
call 200 -u "$ALICE" "$API/sources/$FLIGHTS_ID/fields/price"
call 201 -u "$ALICE" -H "$J" -d '{"name":"price_with_tax","origin":{"type":"DERIVED","derivedOrigin":{"expression":"price * 1.2"}}}' \
  "$API/sources/$FLIGHTS_ID/fields"
expect '.dataType == "NUMBER"'

say "Custom metrics: E1 creates one (201; dataType inferred: NUMBER)."
call 201 -u "$ALICE" -X PUT -H "$J" -d '{"expression":"sum(price) / sum(seats)","label":"Price per seat"}' \
  "$API/sources/$FLIGHTS_ID/custom-metrics/price_per_seat"
expect '.dataType == "NUMBER"'
say "A misspelled field: 400 naming body.expression, the field, line and column."
call 400 -u "$ALICE" -X PUT -H "$J" -d '{"expression":"sum(prise)"}' "$API/sources/$FLIGHTS_ID/custom-metrics/broken"
say "Check an expression without saving it; the language's functions."
call 200 -u "$ALICE" -H "$J" -d "{\"expression\":\"COUNT(carrier) WHERE carrier IN ('LH', 'AF')\"}" \
  "$API/sources/$FLIGHTS_ID/custom-metrics/validate"
expect '.valid == true'
call 200 -u "$ALICE" "$API/sources/$FLIGHTS_ID/expression-syntax"

say "Calendars: the 4-4-5 calendar of the worked example."
call 201 -u "$ALICE" -H "$J" -d '{"type":"FISCAL_445","name":"Retail 4-4-5",
  "fiscal445":{"yearEndWeekDay":"SATURDAY","yearEndsInLastWeek":true,"yearEndIsoMonth":"DECEMBER",
  "quarterType":"QUARTER_445_WEEKS","leapWeekInMonth":12}}' "$API/calendars"
CALENDAR_ID=$(field .id)
say "The months of FY2026: M01 .. M12."
call 200 -u "$ALICE" "$API/calendars/$CALENDAR_ID/periods?from=2026-01-01&to=2026-12-26&type=MONTH"
expect '.content | length == 12'
say "The year, quarter, month and week that hold 15 March 2026."
call 200 -u "$ALICE" "$API/calendars/$CALENDAR_ID/periods/at?date=2026-03-15"
say "The built-in calendar: 2027-01-01 is in 2027 Q1 but in ISO week 53 of 2026."
call 200 -u "$ALICE" "$API/calendars/default/periods/at?date=2027-01-01"
say "28 years of days is too many: 400 TOO_MANY_PERIODS."
call 400 -u "$ALICE" "$API/calendars/default/periods?from=2000-01-01&to=2027-12-31&type=DAY"

say "JSON datasets: numbers stay as written."
call 201 -u "$ALICE" -H "$J" -d '{"name":"Flights","description":"Sample",
  "data":{"records":[{"carrier":"LH","price":120.50,"id":12345678901234567890}]}}' "$API/json-datasets"
DATASET_ID=$(field .id)
say "Read it back: data is what was sent, byte for byte; with its ETag, a poll is 304."
call 200 -u "$ALICE" "$API/json-datasets/$DATASET_ID"
ETAG=$(header ETag)
call 304 -u "$ALICE" -H "If-None-Match: $ETAG" "$API/json-datasets/$DATASET_ID"
say "E5: replace the data only if nobody changed the dataset meanwhile; the same If-Match again is 412."
call 200 -u "$ALICE" -X PUT -H "$J" -H "If-Match: $ETAG" -d '{"name":"Flights","data":{"records":[{"carrier":"AF","price":99.0}]}}' \
  "$API/json-datasets/$DATASET_ID"
call 412 -u "$ALICE" -X PUT -H "$J" -H "If-Match: $ETAG" -d '{"name":"Flights","data":{"records":[]}}' "$API/json-datasets/$DATASET_ID"
call 200 -u "$ALICE" "$API/json-datasets"
call 204 -u "$ALICE" -X DELETE "$API/json-datasets/$DATASET_ID"

say "Connections: the PostgreSQL of npm run demo:postgres (127.0.0.1:5433), as its read-only role."
# The connection's body. $1: the password (default: the reader's); $2: more parameters.
conn() { printf '{"name":"Sales DB","connectionTypeId":"postgresql","allParameters":[{"key":"host","value":"127.0.0.1"},{"key":"port","value":"%s"},{"key":"database","value":"analytics"},{"key":"user","value":"reader"},{"key":"password","value":"%s"},{"key":"sslmode","value":"disable"}%s]}' "${PG_PORT:-5433}" "${1:-reader-password-9Kd#}" "${2:-}"; }
call 200 -u "$ALICE" "$API/connection/types"
say "E7 really connects; a wrong password does not."
call 200 -u "$ALICE" -H "$J" -d "$(conn)" "$API/connections/validate"
expect '.connected == true'
call 200 -u "$ALICE" -H "$J" -d "$(conn wrong)" "$API/connections/validate"
expect '.connected == false'
say "E6: saved under an id of our choosing; the password is not in the answer."
call 201 -u "$ALICE" -X PUT -H "$J" -d "$(conn)" "$API/connections/sales-db"
say "E15: the schemas, a schema's tables, three rows."
call 200 -u "$ALICE" "$API/connections/sales-db/schema"
call 200 -u "$ALICE" "$API/connections/sales-db/schema/sales/describe"
call 200 -u "$ALICE" -H "$J" -d '{"schema":"sales","table":"customers","limit":3}' "$API/connections/sales-db/preview"
say "A source from a real table: the table as native fields, then the source made of them."
call 200 -u "$ALICE" -H "$J" -d '{"connectionId":"sales-db","schema":"sales","table":"orders"}' "$API/sources/data-entities/describe"
call 201 -u "$ALICE" -H "$J" -d "$(jq -c '{name: "Orders", connectionId: "sales-db", fields: .content}' <<<"$BODY")" "$API/sources"
ORDERS_ID=$(field .id)
say "The connection is in use now: 409 CONNECTION_IN_USE naming the source."
call 409 -u "$ALICE" -X DELETE "$API/connections/sales-db"
say "An unknown parameter is a WARNING: 400 without suppressWarnings; with it, saved (200)."
call 400 -u "$ALICE" -X PUT -H "$J" -d "$(conn '' ',{"key":"colour","value":"blue"}')" "$API/connections/sales-db"
call 200 -u "$ALICE" -X PUT -H "$J" -d "$(conn '' ',{"key":"colour","value":"blue"}')" "$API/connections/sales-db?suppressWarnings=true"

say "Materialized views (deprecated): a view on Orders; the answer carries Deprecation and Sunset."
call 200 -u "$ALICE" -H "$J" -d '{"name":"Revenue per customer","definition":{"type":"AGG","sourceId":"'"$ORDERS_ID"'",
  "filters":[{"path":{"name":"amount"},"operation":"GT","value":50}],"aggregations":[{"type":"TERMS","field":{"name":"customer_id"}}],
  "metrics":[{"type":"COUNT"},{"type":"SUM","field":{"name":"amount"}},{"formulaName":"average","formula":"SUM(amount) / COUNT(*)"}]}}' \
  "$API/materialized-views"
VIEW_ID=$(field .id)
printf '  Sunset: %s\n  definitionQuery: %s\n' "$(header Sunset)" "$(field .definitionQuery)"
say "The source is in use now: 400 whose problem lists the view."
call 400 -u "$ALICE" -X DELETE "$API/sources/$ORDERS_ID"
call 204 -u "$ALICE" -X DELETE "$API/materialized-views/$VIEW_ID"

say "Library folders (preview: X-Enable-Preview): alice makes a root, then a child in it."
call 201 -u "$ALICE" -H "$PREVIEW" -H "$J" -d '{"folder_name":"Sales","content_type":"DASHBOARDS"}' "$API/folders"
ROOT_ID=$(field .id)
call 201 -u "$ALICE" -H "$PREVIEW" -H "$J" -d '{"folder_name":"Europe","parent_id":"'"$ROOT_ID"'"}' "$API/folders"
say "The tree as alice: her private root, then Sales (child_count 1). As bob: his private root only."
call 200 -u "$ALICE" -H "$PREVIEW" "$API/folders/tree?content_type=DASHBOARDS"
call 200 -u "$BOB" -H "$PREVIEW" "$API/folders/tree"
expect '[.[] | select(.name == "Sales")] | length == 0'
say "alice lets bob READ Sales; his tree shows it now, and Europe inherits the permission."
call 200 -u "$ALICE" -H "$PREVIEW" -H "$J" -X PUT -d '{"content":[
  {"principalType":"USER","principalId":"'"$ALICE_ID"'","permissions":["READ","WRITE","CREATE","DELETE","ADMINISTER"]},
  {"principalType":"USER","principalId":"'"$BOB_ID"'","permissions":["READ"]}]}' "$API/folders/$ROOT_ID/permissions"
call 200 -u "$BOB" -H "$PREVIEW" "$API/folders/tree"
expect '[.[] | select(.name == "Sales")] | length == 1'
call 200 -u "$BOB" -H "$PREVIEW" "$API/folders/$ROOT_ID/children"
expect '.content[0].permission_inherited == true'
say "bob may not create there (403); without the preview header every folder call is 400."
call 403 -u "$BOB" -H "$PREVIEW" -H "$J" -d '{"folder_name":"Mine","parent_id":"'"$ROOT_ID"'"}' "$API/folders"
call 400 -u "$BOB" "$API/folders/tree"

say "Trusted access: the supervisor makes a client for Acme (the only answer that shows its secret)."
call 201 -u "$SUPERVISOR" -H "$J" \
  -d '{"client_name":"Acme portal","access_token_validity_seconds":3600,"account_ids":["'"$ACCOUNT_ID"'"]}' "$API/trusted-access/clients"
CLIENT_ID=$(field .client_id); CLIENT_SECRET=$(field .client_secret)
say "The portal pushes its user carol into Acme and gets a bearer token."
call 200 -u "$CLIENT_ID:$CLIENT_SECRET" -H "$J" \
  -d '{"username":"carol","account":"Acme","fullname":"Carol Portal","email":"carol@acme.example","groups":["Users"]}' \
  "$API/trusted-access/push/tokens"
ACCESS_TOKEN=$(field .access_token); TOKEN_ID=$(field .token_id)
call 200 -H "Authorization: Bearer $ACCESS_TOKEN" "$API/user"
say "The supervisor revokes it; its next use is 401."
call 204 -u "$SUPERVISOR" -X DELETE "$API/trusted-access/tokens/$TOKEN_ID"
call 401 -H "Authorization: Bearer $ACCESS_TOKEN" "$API/user"

say "Rotating the client's secret: the old one keeps working for the grace period while the portal switches."
call 200 -u "$SUPERVISOR" -H "$J" -d '{"grace_period_seconds":3600}' "$API/trusted-access/clients/$CLIENT_ID/secret"
NEW_SECRET=$(field .client_secret)
call 200 -u "$CLIENT_ID:$CLIENT_SECRET" -H "$J" -d '{"username":"carol","account":"Acme"}' "$API/trusted-access/pull/tokens"
call 200 -u "$CLIENT_ID:$NEW_SECRET" -H "$J" -d '{"username":"carol","account":"Acme"}' "$API/trusted-access/pull/tokens"

say "Webhooks: alice subscribes the receiver of npm run demo:webhooks to Acme's groups (its secret shown once)."
call 201 -u "$ALICE" -H "$J" -d '{"url":"'"$HOOKS"'/hooks/acme","events":["group.*"]}' "$API/webhooks"
HOOK_ID=$(field .id); curl -sSf -X PUT --data "$(field .secret)" "$HOOKS/secret"
say "A change: the receiver prints the signed delivery (the Queue carries it); the deliveries list shows it DELIVERED."
call 201 -u "$ALICE" -H "$J" -d '{"name":"Hooked"}' "$API/groups"
for _ in $(seq 100); do call 200 -u "$ALICE" "$API/webhooks/$HOOK_ID/deliveries?outcome=DELIVERED" >/dev/null; jq -e '.content != []' <<<"$BODY" >/dev/null && break; sleep 0.2; done; expect '.content[0].attempts == 1'

say "Clean up: the client, then the accounts (and everything in them)."
call 204 -u "$SUPERVISOR" -X DELETE "$API/trusted-access/clients/$CLIENT_ID"
for ID in "$STAGING_ID" "$ACCOUNT_ID"; do call 204 -u "$SUPERVISOR" -X DELETE "$API/accounts/$ID"; done
call 404 -u "$SUPERVISOR" "$API/accounts/name/Acme"
printf '\nWalk-through done.\n'
