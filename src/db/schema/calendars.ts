import { sql } from "drizzle-orm";
import { check, foreignKey, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { Fiscal445Settings } from "../../domain/calendar";
import { audit, version } from "./columns";
import { accounts } from "./accounts";
import { sourceItems } from "./sources";

/**
 * An account's calendars (experimental). A MONTH_SHIFT calendar stores `month_shift`, a FISCAL_445
 * one its five settings as JSON in `fiscal445`; the CHECK holds that each has exactly its own member.
 * The creator's name is stored at write time, as the API answers it in `auditable`.
 */
export const calendars = sqliteTable(
  "calendars",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    type: text("type").notNull(),
    monthShift: integer("month_shift"),
    fiscal445: text("fiscal445", { mode: "json" }).$type<Fiscal445Settings>(),
    createdByUserName: text("created_by_user_name").notNull(),
    ...version,
    ...audit,
  },
  (t) => [
    uniqueIndex("calendars_account_name_unique").on(t.accountId, t.name),
    // The parent key of calendar_references (account_id, calendar_id): a field names calendars of its own account only.
    uniqueIndex("calendars_account_id_unique").on(t.accountId, t.id),
    check(
      "calendars_type_members",
      sql`(${t.type} = 'MONTH_SHIFT' AND ${t.monthShift} BETWEEN -11 AND 11 AND ${t.monthShift} <> 0 AND ${t.fiscal445} IS NULL)
        OR (${t.type} = 'FISCAL_445' AND ${t.monthShift} IS NULL AND ${t.fiscal445} IS NOT NULL)`,
    ),
  ],
);

/**
 * Which derived field uses which calendar (`origin.derivedOrigin.calendarId`). The foreign key on
 * the calendar makes the database itself refuse to delete a calendar still in use, and refuse a
 * field naming a calendar deleted meanwhile or of another account; deleting the field (or its
 * source) deletes its row by cascade. The built-in calendar `default` has no row.
 */
export const calendarReferences = sqliteTable(
  "calendar_references",
  {
    sourceId: text("source_id").notNull(),
    itemName: text("item_name").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    calendarId: text("calendar_id").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.sourceId, t.itemName] }),
    index("calendar_references_calendar").on(t.accountId, t.calendarId),
    foreignKey({ columns: [t.sourceId, t.itemName], foreignColumns: [sourceItems.sourceId, sourceItems.name] }).onDelete("cascade"),
    foreignKey({ columns: [t.accountId, t.calendarId], foreignColumns: [calendars.accountId, calendars.id] }),
  ],
);
