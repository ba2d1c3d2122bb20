import { type RawBuilder, type Selectable, sql } from "kysely";
import type { AuditAction, AuditEntry } from "../../domain/audit.ts";
import { offsetOf } from "../../domain/paging.ts";
import type { AuditLog, AuditQuery } from "../../application/ports/audit.ts";
import { compileOnce } from "./compile-once.ts";
import type { Db } from "./database.ts";
import { startsWithPattern } from "./sql-helpers.ts";
import type { AuditLogTable } from "./tables.ts";

// Every audited change writes one of these, so it is compiled once (see compile-once.ts).
const insertEntry = compileOnce(
  (
    db,
    id: string,
    userId: string | null,
    action: string,
    entityType: string,
    entityId: string | null,
    changes: string,
    ipAddress: string | null,
    userAgent: string | null,
    createdAt: Date,
  ) =>
    db.insertInto("audit_log").values({
      id,
      user_id: userId,
      action,
      entity_type: entityType,
      entity_id: entityId,
      changes,
      ip_address: ipAddress,
      user_agent: userAgent,
      created_at: createdAt,
    }),
);

/** An audit entry's fields as a statement's values: `changes` as JSON text. */
const AUDIT_FIELDS = ["id", "userId", "action", "entityType", "entityId", "changes", "ipAddress", "userAgent", "createdAt"] as const;
export type AuditValues = Record<(typeof AUDIT_FIELDS)[number], unknown>;
const fieldsOf = (entityFromRow: boolean) => (entityFromRow ? AUDIT_FIELDS.filter((field) => field !== "entityId") : AUDIT_FIELDS);

/**
 * An entry as arguments of a statement compiled once (compile-once.ts), in the order auditValuesAt
 * reads them back; without the entity's id when the statement takes it from its row.
 */
export function auditArgs(e: AuditEntry, entityFromRow = false): unknown[] {
  const values: AuditValues = { ...e, changes: JSON.stringify(e.changes) };
  return fieldsOf(entityFromRow).map((field) => values[field]);
}

/** The entry's values among a statement's arguments (placeholders, as the statement is built), from `at` on. */
export function auditValuesAt(args: unknown[], at: number, entityFromRow = false): AuditValues {
  return Object.fromEntries(fieldsOf(entityFromRow).map((field, i) => [field, args[at + i]])) as AuditValues;
}

/**
 * The entry's insert as a part of another statement, landing once for each row the statement's
 * `after` (a CTE) returns: an audit entry written in the very statement that makes its change.
 * `fromRow`: what the entry takes from that row, when the change decides it (the entity's id, and
 * fields added to `changes`).
 */
export function insertAuditAfter(after: string, e: AuditValues, fromRow?: { entityId: RawBuilder<string>; changes: RawBuilder<unknown> }) {
  const entityId = fromRow ? fromRow.entityId : sql`${e.entityId}::text`;
  const changes = fromRow ? sql`${e.changes}::jsonb || ${fromRow.changes}` : sql`${e.changes}::jsonb`;
  return sql`
    insert into audit_log (id, user_id, action, entity_type, entity_id, changes, ip_address, user_agent, created_at)
    select ${e.id}::text, ${e.userId}::text, ${e.action}::text, ${e.entityType}::text, ${entityId}, ${changes},
      ${e.ipAddress}::text, ${e.userAgent}::text, ${e.createdAt}::timestamptz
    from ${sql.table(after)}`;
}

function toEntry(r: Selectable<AuditLogTable>): AuditEntry {
  return {
    id: r.id,
    userId: r.user_id,
    action: r.action as AuditAction,
    entityType: r.entity_type,
    entityId: r.entity_id,
    changes: r.changes,
    ipAddress: r.ip_address,
    userAgent: r.user_agent,
    createdAt: r.created_at,
  };
}

/** The back office's search; a prefix is a LIKE the (action text_pattern_ops, created_at) index of migration 0015 serves. */
function matching(db: Db, q: AuditQuery) {
  let query = db.selectFrom("audit_log");
  if (q.userId !== undefined) query = query.where("user_id", "=", q.userId);
  if (q.action !== undefined) query = query.where("action", "=", q.action);
  if (q.actionPrefix !== undefined) query = query.where("action", "like", startsWithPattern(q.actionPrefix));
  if (q.entityType !== undefined) query = query.where("entity_type", "=", q.entityType);
  if (q.entityId !== undefined) query = query.where("entity_id", "=", q.entityId);
  if (q.from !== undefined) query = query.where("created_at", ">=", q.from);
  if (q.to !== undefined) query = query.where("created_at", "<", q.to);
  return query;
}

export function createPgAuditLog(db: Db): AuditLog {
  return {
    async record(e) {
      await insertEntry(db, e.id, e.userId, e.action, e.entityType, e.entityId, JSON.stringify(e.changes), e.ipAddress, e.userAgent, e.createdAt);
    },
    // Two statements, not count(*) over (): a window would read every match before the first row,
    // where the newest-first index gives a page at once.
    async listPage(q, page) {
      const [rows, counted] = await Promise.all([
        matching(db, q).selectAll().orderBy("created_at", "desc").orderBy("id", "desc").limit(page.limit).offset(offsetOf(page)).execute(),
        matching(db, q)
          .select((eb) => eb.fn.countAll<string>().as("total"))
          .executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(toEntry), total: Number(counted.total) };
    },
  };
}
