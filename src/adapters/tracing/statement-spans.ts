import { SpanKind, SpanStatusCode, type Tracer, context, trace } from "@opentelemetry/api";
import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_SUMMARY,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_RESPONSE_STATUS_CODE,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
} from "@opentelemetry/semantic-conventions";
import {
  AliasNode,
  type CompiledQuery,
  DeleteQueryNode,
  InsertQueryNode,
  type LogEvent,
  type OperationNode,
  SelectQueryNode,
  TableNode,
  UpdateQueryNode,
} from "kysely";
import { messageOf } from "../../domain/errors.ts";

/** `db.system` of the older conventions, which trace views still key on; `db.system.name` is its successor. */
const ATTR_DB_SYSTEM = "db.system";

function tableOf(node: OperationNode | undefined): string | undefined {
  const table = node && AliasNode.is(node) ? node.node : node;
  return table && TableNode.is(table) ? table.table.identifier.name : undefined;
}

/** A write at the start of a raw statement or of one of its parts (`with created as (insert into orders …`), never `for update`. */
const RAW_WRITE = /(?:^|\()\s*(insert\s+into|update|delete\s+from)\s+"?(\w+)/i;
const RAW_READ_FROM = /\bfrom\s+"?(\w+)/i;

/** What a raw statement (Kysely's `sql` template) does: its first write, else the table it reads first, else its first word (BEGIN, COMMIT). */
function describeRaw(sql: string): { operation: string; table?: string } {
  const write = RAW_WRITE.exec(sql);
  if (write) return { operation: (write[1] as string).split(/\s/)[0]!.toUpperCase(), table: write[2] };
  const first = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? "SQL";
  return first === "SELECT" || first === "WITH" ? { operation: "SELECT", table: RAW_READ_FROM.exec(sql)?.[1] } : { operation: first };
}

type Described = { operation: string; table?: string | undefined };

/** What a statement Kysely built does, and to which table; undefined for one it did not build (a raw statement). */
function describeNode(node: OperationNode): Described | undefined {
  if (SelectQueryNode.is(node)) return { operation: "SELECT", table: tableOf(node.from?.froms[0]) };
  if (InsertQueryNode.is(node)) return { operation: "INSERT", table: tableOf(node.into) };
  if (UpdateQueryNode.is(node)) return { operation: "UPDATE", table: tableOf(node.table) };
  if (DeleteQueryNode.is(node)) return { operation: "DELETE", table: tableOf(node.from.froms[0]) };
  return undefined;
}

/**
 * What a statement does, and to which table: from Kysely's tree when it built the statement. A read
 * whose CTE writes (`with taken as (delete from cart_items …) select …`) is that write.
 */
function describe({ query, sql }: CompiledQuery): Described {
  const described = describeNode(query);
  if (!described) return describeRaw(sql);
  if (described.operation !== "SELECT" || !SelectQueryNode.is(query)) return described;
  const writes = (query.with?.expressions ?? []).map((cte) => describeNode(cte.expression)).filter((cte) => cte && cte.operation !== "SELECT");
  return writes[0] ?? described;
}

/**
 * Kysely's log hook, making a client span of every statement once it has run (Kysely times it): its
 * text as compiled, with `$1` placeholders and never the values, under the span of the use case or
 * request that ran it. A statement run outside any span (the outbox worker's poll, housekeeping, the
 * start's migrations) makes none: a trace of its own every two seconds would bury the requests.
 */
export function statementSpans(tracer: Tracer): (event: LogEvent) => void {
  return (event) => {
    const parent = context.active();
    if (!trace.getSpan(parent)) return;
    const end = performance.timeOrigin + performance.now();
    const { operation, table } = describe(event.query);
    const summary = table ? `${operation} ${table}` : operation;
    const span = tracer.startSpan(
      summary,
      {
        kind: SpanKind.CLIENT,
        startTime: end - event.queryDurationMillis,
        attributes: {
          [ATTR_DB_SYSTEM]: "postgresql",
          [ATTR_DB_SYSTEM_NAME]: "postgresql",
          [ATTR_DB_OPERATION_NAME]: operation,
          [ATTR_DB_QUERY_SUMMARY]: summary,
          [ATTR_DB_QUERY_TEXT]: event.query.sql,
          ...(table ? { [ATTR_DB_COLLECTION_NAME]: table } : {}),
        },
      },
      parent,
    );
    if (event.level === "error") {
      // PostgreSQL's SQLSTATE (40001, 23505…) when the database answered; the error's name when it did not.
      const code = (event.error as { code?: unknown } | null)?.code;
      if (typeof code === "string") span.setAttribute(ATTR_DB_RESPONSE_STATUS_CODE, code);
      span.setAttribute(ATTR_ERROR_TYPE, typeof code === "string" ? code : event.error instanceof Error ? event.error.name : "unknown");
      span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(event.error) });
    }
    span.end(end);
  };
}
