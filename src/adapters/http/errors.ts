import type { ErrorCode } from "../../domain/errors.ts";
import { MAX_ISSUES, type ValidationIssue } from "./plumbing/input-checks.ts";

/** One status per domain error code; a new code will not compile until it is mapped here. */
export const statusOf = {
  invalid_input: 400,
  forbidden: 403,
  "product.not_found": 404,
  "product.conflict": 409,
  "product.inventory_changed": 409,
  "auth.unauthenticated": 401,
  "auth.invalid_credentials": 401,
  "auth.too_many_attempts": 429,
  "auth.email_taken": 409,
  "auth.wrong_password": 400,
  "auth.provider_not_configured": 404,
  "auth.invalid_oauth_state": 400,
  "auth.provider_failed": 400,
  "user.not_found": 404,
  "user.last_admin": 409,
  "cart.item_not_found": 404,
  "cart.quantity_limit": 400,
  "cart.too_many_lines": 400,
  "inventory.insufficient": 400,
  "order.invalid_transition": 400,
  "payment.invalid_method": 400,
  "payment.processor_failed": 500,
  "payment.already_refunded": 409,
  "payment.intent_refused": 500,
  "tax.unavailable": 500,
  "cart.empty": 400,
  "cart.items_not_found": 400,
  "cart.changed": 400,
  "order.not_found": 404,
  "order.creation_failed": 500,
  "order.tracking_required": 400,
  "order.tracking_not_allowed": 400,
  "order.too_large": 400,
  "order.too_many_unpaid": 409,
  "payment.in_progress": 409,
  "order.in_progress": 409,
  "order.checkout_ended": 409,
  "payment.declined": 402,
  "order.already_paid": 400,
  "order.not_payable": 400,
  "order.not_cancellable": 400,
  "webhook.invalid_signature": 400,
  "webhook.malformed": 400,
  "webhook.not_configured": 503,
  "auth.busy": 503,
  "auth.check_waiting": 429,
  "auth.checks_running": 503,
  "database.unavailable": 503,
  "database.busy": 503,
  "database.full": 503,
  "database.read_only": 503,
} as const satisfies Record<ErrorCode, number>;

/** Failures that belong to HTTP itself (body too large, bad media type, wrong method), not to the domain. */
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

export function invalidRequest(issues: ValidationIssue[]): ErrorBody {
  return { error: "Invalid request", details: { issues: issues.slice(0, MAX_ISSUES) } };
}
