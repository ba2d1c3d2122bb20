import type { ErrorCode } from "../../domain/errors.ts";

/** One status per domain error code; a new code will not compile until it is mapped here. */
export const statusOf = {
  invalid_input: 400,
  not_found: 404,
  "product.not_found": 404,
  "location.not_found": 404,
} as const satisfies Record<ErrorCode, number>;

/** Failures that belong to HTTP itself (body too large, bad media type), not to the domain. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export interface ErrorBody {
  error: string;
  details?: Record<string, unknown>;
}

export interface ValidationIssue {
  path: string;
  message: string;
}

export function invalidRequest(issues: ValidationIssue[]): ErrorBody {
  return { error: "Invalid request", details: { issues } };
}
