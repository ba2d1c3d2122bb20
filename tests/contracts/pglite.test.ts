import { describe } from "bun:test";
import { locationRepositoryContract } from "./location-repository.contract.ts";
import { productRepositoryContract } from "./product-repository.contract.ts";
import { openPgliteTarget, useContractTarget } from "./targets.ts";

describe("pglite adapters", () => {
  const target = useContractTarget(openPgliteTarget);
  productRepositoryContract(target);
  locationRepositoryContract(target);
});
