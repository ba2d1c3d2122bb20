import { describe } from "bun:test";
import { allContracts } from "./all-contracts.ts";
import { openMemoryTarget, useContractTarget } from "./targets.ts";

describe("memory adapters", () => allContracts(useContractTarget(openMemoryTarget)));
