import { describe } from "bun:test";
import { allContracts } from "./all-contracts.ts";
import { openPostgresTarget, useContractTarget } from "./targets.ts";

describe("postgres adapters", () => allContracts(useContractTarget(openPostgresTarget)));
