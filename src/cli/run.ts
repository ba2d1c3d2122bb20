import { commonPasswords } from "../adapters/crypto/common-passwords.ts";
import { isLockTimeout } from "../adapters/db/sql-helpers.ts";
import { ConfigError, loadConfig } from "../config.ts";
import { isDatabaseBusy, isRefusingWrites, isDatabaseUnavailable, messageOf } from "../domain/errors.ts";
import { CliError, issuesOf } from "./cli-error.ts";
import { type Output, commands, usage } from "./commands.ts";

/**
 * One run of the admin CLI: the command named by `argv[0]` with the rest as its arguments, its
 * settings read from `env`, what it says written to `output`. Resolves to the exit code: 0 done,
 * 1 refused or failed, 2 called wrongly; either with one line on stderr (decisions §1), a command
 * called wrongly naming how it is called (no command at all: one line pointing to --help). The bin
 * (main.ts) hands it the process's own; tests call it with theirs.
 */
export async function runCli(argv: readonly string[], env: Record<string, string | undefined>, output: Output): Promise<number> {
  const [name, ...args] = argv;
  if (name === "help" || name === "--help" || name === "-h") {
    output.out(usage());
    return 0;
  }
  // Its own commands only: "toString" or "__proto__" is no command.
  const command = name && Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    // One line either way (decisions §1); the usage itself is --help's.
    output.err(`${name ? `Unknown command: ${name}` : "No command given"} (every command: npm run cli -- --help)`);
    return 2;
  }
  // One line (decisions §1), whatever the parser wrote: Node's own words for `--orders -5` take three.
  const misused = (message: string) => `${message.replace(/\s*\n\s*/g, " ")} (usage: npm run cli -- ${command.usage})`;
  try {
    await command.run(args, loadConfig(env, commonPasswords), output);
    return 0;
  } catch (error) {
    if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) {
      output.err(misused(error.message));
      return 2;
    }
    if (error instanceof CliError && error.exitCode === 2) {
      output.err(misused(error.message));
      return 2;
    }
    if (error instanceof CliError || error instanceof ConfigError) {
      output.err(error.message);
      return error instanceof CliError ? error.exitCode : 1;
    }
    output.err(`Error: ${describe(error)}`);
    return 1;
  }
}

/**
 * One line: the message, and for invalid input each field and what is wrong with it; for a refusal
 * for want of the database, what the database said, and where a held row is, what to look for.
 */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const issues = issuesOf(error);
  if (issues.length) return `${error.message}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`;
  if (isDatabaseBusy(error) && isLockTimeout(error.cause))
    return `${error.message} (${messageOf(error.cause)}: another session holds a row this needs; docs/operations.md, "A transaction left open on the shop's rows", shows how to find it)`;
  if (isDatabaseBusy(error))
    return `${error.message} (${messageOf(error.cause)}: the database cancelled it; docs/operations.md, "The database taking no writes, cancelling statements, or set otherwise", says why it may)`;
  if (isDatabaseUnavailable(error) || isRefusingWrites(error)) return `${error.message} (${messageOf(error.cause)})`;
  return error.message;
}
