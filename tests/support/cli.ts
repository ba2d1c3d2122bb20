import { runCli } from "../../src/cli/run.ts";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The admin CLI run in this process, as its bin runs it (src/cli/main.ts hands runCli the process's
 * arguments, environment and console): the exit code, and what it wrote to stdout and stderr, a line
 * ending each write as console.log ends it. `env` adds to this process's environment; bcrypt hashes
 * at its cheapest, as the process tests' shops do, but in production (which takes no less than 12). A process costs a second of CPU to start: the
 * binary's own wiring (exit codes, streams, the embedded database's lock) is proven by spawning it
 * in tests/process/cli.test.ts and start-up.test.ts.
 */
export async function runCliHere(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(
    args,
    { ...process.env, LOG_LEVEL: "silent", ...(env.NODE_ENV === "production" ? {} : { BCRYPT_COST: "4" }), ...env },
    {
      out: (text) => void (stdout += `${text}\n`),
      err: (text) => void (stderr += `${text}\n`),
      write: async (chunk) => void (stdout += chunk),
    },
  );
  return { code, stdout, stderr };
}
