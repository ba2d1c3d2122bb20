import { demoCatalog } from "../application/catalog/demo-catalog.ts";
import { makeUseCases } from "../application/use-cases.ts";
import { migrateToLatest } from "../adapters/db/migrate.ts";
import { buildRuntime } from "../compose.ts";
import type { Config } from "../config.ts";
import { CliError } from "./cli-error.ts";

export interface Command {
  usage: string;
  summary: string;
  run(args: string[], config: Config): Promise<void>;
}

function noArguments(name: string, args: string[]) {
  if (args.length > 0) throw new CliError(`${name} takes no arguments\n\n${usage()}`, 2);
}

/** Opens the configured database, brings its schema up to date, runs the work and closes it again. */
async function withRuntime<T>(config: Config, work: (runtime: ReturnType<typeof buildRuntime>, applied: string[]) => Promise<T>) {
  const runtime = buildRuntime(config);
  try {
    const applied = await migrateToLatest(runtime.db);
    return await work(runtime, applied);
  } finally {
    await runtime.close();
  }
}

export const commands: Record<string, Command> = {
  "db:migrate": {
    usage: "db:migrate",
    summary: "apply every pending database migration",
    run: (args, config) => {
      noArguments("db:migrate", args);
      return withRuntime(config, async (runtime, applied) => {
        console.log(applied.length ? `Applied ${applied.join(", ")} to ${runtime.adapters.database}` : "Database is up to date");
      });
    },
  },
  "db:seed": {
    usage: "db:seed",
    summary: "add the demo catalog (products and retail locations) where missing",
    run: (args, config) => {
      noArguments("db:seed", args);
      return withRuntime(config, async (runtime) => {
        const result = await makeUseCases(runtime.deps).seedDemoCatalog(demoCatalog);
        console.log(`Added ${result.productsAdded} products and ${result.locationsAdded} locations`);
      });
    },
  },
};

export function usage(): string {
  const lines = Object.values(commands).map((c) => `  ${c.usage.padEnd(28)} ${c.summary}`);
  return ["Usage: npm run cli -- <command> [arguments]", "", "Commands:", ...lines].join("\n");
}
