import { afterAll, expect, test } from "bun:test";
import { type Socket, createServer } from "node:net";
import { openDatabase } from "../../src/adapters/db/database.ts";
import { createPgUnitOfWork } from "../../src/adapters/db/store.ts";
import { DomainError } from "../../src/domain/errors.ts";

// A PostgreSQL server terminated a connection the instant it was ready (pg_terminate_backend on a
// backend just started, or a restart at that moment): it sends ReadyForQuery and the FATAL
// 57P01 together. node-postgres hands the client out on the first and reports the second on the
// client, in the same turn; with nobody listening there yet, the shop process died of it. A stand-in
// server that answers every connection so, in one write, shows it without a real server.
const message = (type: string, body: Buffer) => {
  const header = Buffer.alloc(5);
  header.write(type, 0);
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
};
const cstring = (text: string) => Buffer.from(`${text}\0`);
const AUTHENTICATION_OK = message("R", Buffer.from([0, 0, 0, 0]));
const READY_FOR_QUERY = message("Z", Buffer.from("I"));
const TERMINATED = message(
  "E",
  Buffer.concat([
    Buffer.from("S"),
    cstring("FATAL"),
    Buffer.from("C"),
    cstring("57P01"),
    Buffer.from("M"),
    cstring("terminating connection due to administrator command"),
    Buffer.from([0]),
  ]),
);

const sockets = new Set<Socket>();
const server = createServer((socket) => {
  sockets.add(socket);
  socket.on("error", () => {});
  // The startup message is the first thing a client sends: the answer is ready, then gone.
  socket.once("data", () => {
    socket.write(Buffer.concat([AUTHENTICATION_OK, READY_FOR_QUERY, TERMINATED]));
    socket.end();
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address() as { port: number };
afterAll(() => {
  for (const socket of sockets) socket.destroy();
  server.close();
});

test("a connection terminated the instant it was ready fails the query as database.unavailable (a 503), and the process lives on", async () => {
  const lost: string[] = [];
  const { db } = openDatabase(
    { kind: "postgres", url: `postgres://shop@127.0.0.1:${port}/shop` },
    {
      debug: () => {},
      info: () => {},
      warn: (event, fields) => lost.push(`${event} ${fields?.error}`),
      error: () => {},
    },
  );
  const uow = createPgUnitOfWork(db);
  try {
    for (const attempt of [() => uow.read((repos) => repos.products.findById("p1")), () => uow.transaction((tx) => tx.products.findById("p1"))]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe("database.unavailable");
    }
    expect(lost).toContain("database.connection_lost terminating connection due to administrator command");
  } finally {
    await db.destroy();
  }
});
