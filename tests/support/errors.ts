import { DomainError } from "../../src/domain/errors.ts";

/** The DomainError a promise rejected with; fails the test when it resolved or rejected with something else. */
export async function domainErrorOf(work: Promise<unknown>): Promise<DomainError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(error)}`);
  return error;
}
