import { ConfigError, loadConfig } from "../config.ts";
import { commands, usage } from "./commands.ts";
import { CliError } from "./cli-error.ts";

const [name, ...args] = process.argv.slice(2);
const command = name ? commands[name] : undefined;
if (!command) {
  console.error(name ? `Unknown command: ${name}\n\n${usage()}` : usage());
  process.exit(2);
}

try {
  const config = loadConfig();
  await command.run(args, config);
  process.exit(0);
} catch (error) {
  if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) {
    console.error(`${error.message}\n\n${usage()}`);
    process.exit(2);
  }
  if (error instanceof CliError || error instanceof ConfigError) {
    console.error(error.message);
    process.exit(error instanceof CliError ? error.exitCode : 1);
  }
  console.error(`Error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
