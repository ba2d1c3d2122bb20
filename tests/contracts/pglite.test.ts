import { describe } from "bun:test";
import { allContracts } from "./all-contracts.ts";
import { openPgliteTarget, useContractTarget } from "./targets.ts";

describe("pglite adapters", () => allContracts(useContractTarget(openPgliteTarget)));
