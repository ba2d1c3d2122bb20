import { describe } from "bun:test";
import { auditLogContract } from "./audit-log.contract.ts";
import { cartRepositoryContract } from "./cart-repository.contract.ts";
import { locationRepositoryContract } from "./location-repository.contract.ts";
import { mailOutboxContract } from "./mail-outbox.contract.ts";
import { permissionRepositoryContract } from "./permission-repository.contract.ts";
import { productRepositoryContract } from "./product-repository.contract.ts";
import { openPostgresTarget, useContractTarget } from "./targets.ts";
import { userRepositoryContract } from "./user-repository.contract.ts";

describe("postgres adapters", () => {
  const target = useContractTarget(openPostgresTarget);
  productRepositoryContract(target);
  locationRepositoryContract(target);
  userRepositoryContract(target);
  permissionRepositoryContract(target);
  auditLogContract(target);
  mailOutboxContract(target);
  cartRepositoryContract(target);
});
