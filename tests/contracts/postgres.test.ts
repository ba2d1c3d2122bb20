import { describe } from "bun:test";
import { locationRepositoryContract } from "./location-repository.contract.ts";
import { productRepositoryContract } from "./product-repository.contract.ts";
import { openPostgresTarget, useContractTarget } from "./targets.ts";

describe("postgres adapters", () => {
  const target = useContractTarget(openPostgresTarget);
  productRepositoryContract(target);
  locationRepositoryContract(target);
});
