/** An error the CLI reports as one line; exit code 2 means the command was called wrongly. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
