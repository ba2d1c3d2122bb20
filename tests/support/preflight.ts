import { Client } from "pg";
import { ADMIN_DATABASE_URL } from "./postgres.ts";

// Loaded before any test (bunfig.toml): without the PostgreSQL server most suites cannot run, so
// say so once, plainly, instead of a screen of ECONNREFUSED.
const client = new Client({ connectionString: ADMIN_DATABASE_URL, connectionTimeoutMillis: 3_000 });
try {
  await client.connect();
} catch (error) {
  const { host } = new URL(ADMIN_DATABASE_URL);
  const reason = (error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error));
  console.error(
    `The tests need PostgreSQL at ${host} (TEST_DATABASE_URL), which does not answer (${reason}): start it with ` +
      "`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, or run .ci/run, which starts it.",
  );
  process.exit(1);
} finally {
  await client.end().catch(() => undefined);
}
