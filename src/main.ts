import { demoCatalog } from "./application/catalog/demo-catalog.ts";
import { makeUseCases } from "./application/use-cases.ts";
import { migrateToLatest } from "./adapters/db/migrate.ts";
import { createApp } from "./adapters/http/app.ts";
import { MAX_BODY_BYTES } from "./adapters/http/plumbing.ts";
import { createJsonLogger } from "./adapters/log.ts";
import { buildRuntime } from "./compose.ts";
import { ConfigError, loadConfig } from "./config.ts";

function readConfig() {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

const config = readConfig();
const logger = createJsonLogger(config.logLevel);
const runtime = buildRuntime(config);
const applied = await migrateToLatest(runtime.db);
if (applied.length > 0) logger.info("database.migrated", { applied });

const useCases = makeUseCases(runtime.deps);
if (runtime.embedded && applied.includes("0001_initial")) {
  logger.info("catalog.seeded", { ...(await useCases.seedDemoCatalog(demoCatalog)) });
}

const app = createApp(useCases, { logger }).listen({
  port: config.port,
  // Bun refuses larger bodies before they are buffered; the app's own check answers 413 for the rest.
  maxRequestBodySize: MAX_BODY_BYTES * 2,
});
logger.info("server.started", { url: `${config.publicUrl}/api`, port: app.server?.port, adapters: runtime.adapters });

async function shutdown(signal: string) {
  logger.info("server.stopping", { signal });
  await app.stop();
  await runtime.close();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
