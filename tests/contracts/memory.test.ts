import { describe } from "bun:test";
import { locationRepositoryContract } from "./location-repository.contract.ts";
import { productRepositoryContract } from "./product-repository.contract.ts";
import { openMemoryTarget, useContractTarget } from "./targets.ts";

describe("memory adapters", () => {
  const target = useContractTarget(openMemoryTarget);
  productRepositoryContract(target);
  locationRepositoryContract(target);
});
