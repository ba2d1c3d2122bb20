import type { Compilable, CompiledQuery, RawBuilder } from "kysely";
import type { Db } from "./database.ts";

/** Holds the place of the n-th argument while a query is compiled. */
class Slot {
  constructor(readonly index: number) {}
}

/**
 * A query of fixed shape that Kysely builds and compiles once, instead of on every call (some
 * 50 µs of CPU per query on the 2-core bench machine, as much as pg spends sending and decoding
 * it). Each call only puts its arguments into the compiled parameters. `build` never sees the real
 * arguments, so it must pass each one to Kysely as a plain value: no branching on it, no
 * transforming it, no arrays to expand (`in`).
 */
export function compileOnce<Args extends unknown[], Row>(build: (db: Db, ...args: Args) => Statement<Row>) {
  let template: CompiledQuery<Row> | undefined;
  return async (db: Db, ...args: Args): Promise<Row[]> => {
    if (hasPlugins(db)) return execute(db, build(db, ...args));
    template ??= compileTemplate(db, build(db, ...slotsFor(args)), args.length);
    return run(db, template, args);
  };
}

/**
 * compileOnce for a statement whose shape follows a few choices of the call's (which columns a
 * change sets, whether an audit entry rides along): compiled once per shape, `key` naming the
 * shape. `build` sees the shape itself, and the arguments as placeholders, as compileOnce's does;
 * each shape must take all of the arguments.
 */
export function compilePerShape<Shape, Args extends unknown[], Row>(
  key: (shape: Shape) => string,
  build: (db: Db, shape: Shape, ...args: Args) => Statement<Row>,
) {
  const templates = new Map<string, CompiledQuery<Row>>();
  return async (db: Db, shape: Shape, ...args: Args): Promise<Row[]> => {
    if (hasPlugins(db)) return execute(db, build(db, shape, ...args));
    const name = key(shape);
    let template = templates.get(name);
    if (!template) {
      template = compileTemplate(db, build(db, shape, ...slotsFor(args)), args.length);
      templates.set(name, template);
    }
    return run(db, template, args);
  };
}

/**
 * A database with plugins (the tests' faults, injected where a statement is compiled) has each
 * call's statement built and compiled afresh, so that its plugins see every statement: a template
 * compiled once would pass them by.
 */
const hasPlugins = (db: Db) => db.getExecutor().plugins.length > 0;

async function execute<Row>(db: Db, statement: Statement<Row>): Promise<Row[]> {
  return ("isRawBuilder" in statement ? await statement.execute(db) : await db.executeQuery(statement)).rows;
}

const slotsFor = <Args extends unknown[]>(args: Args) => args.map((_, index) => new Slot(index)) as Args;

async function run<Row>(db: Db, template: CompiledQuery<Row>, args: unknown[]): Promise<Row[]> {
  const parameters = template.parameters.map((value) => (value instanceof Slot ? args[value.index] : value));
  return (await db.executeQuery<Row>({ ...template, parameters })).rows;
}

/** A query built with Kysely's builder, or written with `sql`. */
type Statement<Row> = Compilable<Row> | RawBuilder<Row>;

function compileTemplate<Row>(db: Db, query: Statement<Row>, arity: number): CompiledQuery<Row> {
  const template = "isRawBuilder" in query ? query.compile(db) : query.compile();
  const used = new Set(template.parameters.flatMap((value) => (value instanceof Slot ? [value.index] : [])));
  // An argument read through (a property of it, say) instead of passed as a value never reaches
  // the parameters, and every call would silently send the wrong thing.
  for (let index = 0; index < arity; index++) {
    if (!used.has(index)) throw new Error(`compileOnce: argument ${index + 1} is not passed to the query as a value`);
  }
  return template;
}
