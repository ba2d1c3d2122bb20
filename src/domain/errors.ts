/** Every expected failure the application can report. The HTTP layer maps each to a status. */
export type ErrorCode =
  | "invalid_input"
  | "not_found"
  | "product.not_found"
  | "location.not_found";

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "DomainError";
  }
}
