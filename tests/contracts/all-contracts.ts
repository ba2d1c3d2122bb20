import { auditLogContract } from "./audit-log.contract.ts";
import { cartRepositoryContract } from "./cart-repository.contract.ts";
import { idempotencyKeysContract } from "./idempotency-keys.contract.ts";
import { locationRepositoryContract } from "./location-repository.contract.ts";
import { mailOutboxContract } from "./mail-outbox.contract.ts";
import { orderQueueContract } from "./order-queue.contract.ts";
import { orderRepositoryContract } from "./order-repository.contract.ts";
import { permissionRepositoryContract } from "./permission-repository.contract.ts";
import { productRepositoryContract } from "./product-repository.contract.ts";
import { refundRepositoryContract } from "./refund-repository.contract.ts";
import { salesContract } from "./sales.contract.ts";
import { sessionRepositoryContract } from "./session-repository.contract.ts";
import { suppressionListContract } from "./suppression-list.contract.ts";
import type { ContractTarget } from "./targets.ts";
import { unitOfWorkContract } from "./unit-of-work.contract.ts";
import { userAccountsContract } from "./user-accounts.contract.ts";
import { userRepositoryContract } from "./user-repository.contract.ts";
import { webhookEventLogContract } from "./webhook-event-log.contract.ts";

/** Every repository contract and the unit of work's; each adapter family runs all of them (memory.test.ts, postgres.test.ts, pglite.test.ts). */
export function allContracts(target: () => ContractTarget) {
  productRepositoryContract(target);
  locationRepositoryContract(target);
  userRepositoryContract(target);
  userAccountsContract(target);
  sessionRepositoryContract(target);
  permissionRepositoryContract(target);
  auditLogContract(target);
  mailOutboxContract(target);
  suppressionListContract(target);
  cartRepositoryContract(target);
  orderRepositoryContract(target);
  orderQueueContract(target);
  webhookEventLogContract(target);
  idempotencyKeysContract(target);
  refundRepositoryContract(target);
  salesContract(target);
  unitOfWorkContract(target);
}
