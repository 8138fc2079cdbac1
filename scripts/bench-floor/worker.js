// The honest floor of a read: a bare Worker that answers each benchmarked read with the same
// D1 round trip the API makes for it (same SQL, same batch), and nothing else: no routing
// framework, no authentication, no validation, no error handling. `npm run bench` runs it on the
// same seeded local D1 and compares each API read with its own floor.
const ACCOUNT_BY_NAME = `select "id", "name", "disabled", "is_default", "reply_to_address", "sender_display_name", "attributes", "revision", "created_by_user_id", "created_date", "last_modified_by_user_id", "last_modified_date", (SELECT count(*) FROM users WHERE users.account_id = accounts.id) from "accounts" where "accounts"."name" = ?`;

const QUOTA = `select "account_id", "revision", "created_by_user_id", "created_date", "last_modified_by_user_id", "last_modified_date", (SELECT json_group_array(json_object('type', l.type, 'limit', l.limit_value, 'consumption', (CASE l.type WHEN ? THEN (SELECT count(*) FROM sources WHERE sources.account_id = l.account_id) ELSE 0 END))) FROM quota_limits l WHERE l.account_id = quotas.account_id) from "quotas" where "quotas"."account_id" = ?`;

const SOURCE_WITH_GRANTS = `select "id", "account_id", "name", "description", "connection_id", "features", "enabled", "owner_user_id", "fields_security_enabled", "custom_metrics_security_enabled", "revision", "created_by_user_id", "created_date", "last_modified_by_user_id", "last_modified_date", (SELECT json_group_array(sp.permission) FROM source_permissions sp
    WHERE sp.source_id = "sources"."id"
      AND ((sp.principal_type = 'USER' AND sp.principal_id = ?)
        OR (sp.principal_type = 'GROUP' AND sp.principal_id IN (SELECT value FROM json_each(?))))) from "sources" where ("sources"."account_id" = ? and "sources"."id" = ?)`;

const FIELD = `select "id", "source_id", "account_id", "kind", "name", "data_type", "body", "revision", "created_by_user_id", "created_date", "last_modified_by_user_id", "last_modified_date" from "source_items" where ("source_items"."source_id" = ? and "source_items"."kind" = ? and "source_items"."name" = ?)`;

const CALENDAR_COLUMNS = `"id", "account_id", "name", "type", "month_shift", "fiscal445", "created_by_user_name", "revision", "created_by_user_id", "created_date", "last_modified_by_user_id", "last_modified_date"`;
const CALENDAR = `select ${CALENDAR_COLUMNS} from "calendars" where ("calendars"."account_id" = ? and "calendars"."id" = ?)`;
const CALENDARS = `select ${CALENDAR_COLUMNS} from "calendars" where "calendars"."account_id" = ? order by "calendars"."name" asc`;

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const q = (name) => url.searchParams.get(name);
    switch (url.pathname) {
      case "/floor/account-by-name":
        return Response.json((await env.DB.prepare(ACCOUNT_BY_NAME).bind(q("name")).all()).results[0]);
      case "/floor/quota":
        return Response.json((await env.DB.prepare(QUOTA).bind("SOURCE", q("accountId")).all()).results[0]);
      case "/floor/field": {
        const [source, field] = await env.DB.batch([
          env.DB.prepare(SOURCE_WITH_GRANTS).bind(q("userId"), q("groupIds"), q("accountId"), q("sourceId")),
          env.DB.prepare(FIELD).bind(q("sourceId"), "FIELD", q("fieldName")),
        ]);
        return Response.json({ source: source.results[0], field: field.results[0] });
      }
      case "/floor/calendar":
        return Response.json((await env.DB.prepare(CALENDAR).bind(q("accountId"), q("calendarId")).all()).results[0]);
      case "/floor/calendars":
        return Response.json({ content: (await env.DB.prepare(CALENDARS).bind(q("accountId")).all()).results });
      default:
        return new Response("ok");
    }
  },
};
