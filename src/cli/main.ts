import { commonPasswords } from "../adapters/crypto/common-passwords.ts";
import { ConfigError, loadConfig } from "../config.ts";
import { commands, usage } from "./commands.ts";
import { DomainError } from "../domain/errors.ts";
import { CliError } from "./cli-error.ts";

const [name, ...args] = process.argv.slice(2);
if (name === "help" || name === "--help" || name === "-h") {
  console.log(usage());
  process.exit(0);
}
const command = name ? commands[name] : undefined;
if (!command) {
  console.error(name ? `Unknown command: ${name}\n\n${usage()}` : usage());
  process.exit(2);
}

try {
  const config = loadConfig(process.env, commonPasswords);
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
  console.error(`Error: ${describe(error)}`);
  process.exit(1);
}

/** One line: the message, and for invalid input each field and what is wrong with it. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const issues = error instanceof DomainError && Array.isArray(error.details?.issues) ? (error.details.issues as { path: string; message: string }[]) : [];
  return issues.length ? `${error.message}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}` : error.message;
}
