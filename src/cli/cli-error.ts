import { DomainError } from "../domain/errors.ts";
/** An error the CLI reports as one line; exit code 2 means the command was called wrongly. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** The fields a refusal of invalid input names (DomainError's `details.issues`); none for any other error. */
export function issuesOf(error: unknown): Array<{ path: string; message: string }> {
  return error instanceof DomainError && Array.isArray(error.details?.issues) ? (error.details.issues as Array<{ path: string; message: string }>) : [];
}
