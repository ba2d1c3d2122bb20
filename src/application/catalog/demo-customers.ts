import type { Address } from "../../domain/address.ts";
import type { User } from "../../domain/user.ts";
import { type Random, idOf, pick, weighted } from "./seeded-random.ts";

const DAY = 86_400_000;

const FIRST = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Dennis", "Radia", "Niklaus", "Sophie", "Tim", "Hedy"];
const LAST = [
  "Lovelace",
  "Hopper",
  "Turing",
  "Dijkstra",
  "Liskov",
  "Knuth",
  "Allen",
  "Thompson",
  "Hamilton",
  "Ritchie",
  "Perlman",
  "Wirth",
  "Wilson",
  "Lamarr",
];
/** Where the demo history's customers live (most in the lower 48; AK, HI and PR ship dearer; a few abroad, never free), with a made-up sales tax rate. */
const PLACES: ReadonlyArray<readonly [Omit<Address, "address1" | "address2">, number, number]> = [
  [{ city: "Austin", state: "TX", postalCode: "78701", country: "US" }, 0.0625, 14],
  [{ city: "Los Angeles", state: "CA", postalCode: "90012", country: "US" }, 0.0725, 16],
  [{ city: "Brooklyn", state: "NY", postalCode: "11201", country: "US" }, 0.04, 12],
  [{ city: "Miami", state: "FL", postalCode: "33130", country: "US" }, 0.06, 10],
  [{ city: "Chicago", state: "IL", postalCode: "60601", country: "US" }, 0.0625, 9],
  [{ city: "Seattle", state: "WA", postalCode: "98101", country: "US" }, 0.065, 8],
  [{ city: "Denver", state: "CO", postalCode: "80202", country: "US" }, 0.029, 7],
  [{ city: "Portland", state: "OR", postalCode: "97201", country: "US" }, 0, 6],
  [{ city: "Atlanta", state: "GA", postalCode: "30303", country: "US" }, 0.04, 7],
  [{ city: "Boston", state: "MA", postalCode: "02108", country: "US" }, 0.0625, 6],
  [{ city: "Anchorage", state: "AK", postalCode: "99501", country: "US" }, 0, 1],
  [{ city: "Honolulu", state: "HI", postalCode: "96813", country: "US" }, 0.04, 1],
  [{ city: "San Juan", state: "PR", postalCode: "00901", country: "US" }, 0.115, 1],
  [{ city: "Toronto", state: "ON", postalCode: "M5H 2N2", country: "CA" }, 0, 2],
];

const WEIGHTS = PLACES.map(([, , weight]) => weight);

/** A customer of the demo history: no password (cannot sign in), one address, its state's tax rate. */
export interface Customer {
  user: User;
  address: Address;
  taxRate: number;
  /** Handed out in a batch already. */
  written: boolean;
}

export function aCustomer(random: Random, now: Date): Customer {
  const [place, taxRate] = PLACES[weighted(random, WEIGHTS)]!;
  const first = pick(random, FIRST);
  const last = pick(random, LAST);
  // Joined before the history begins.
  const joined = new Date(now.getTime() - 400 * DAY);
  const id = idOf(random);
  const user: User = {
    id,
    // Named after its id: an address already taken is this very customer, written by an earlier run of the same seed.
    email: `${first}.${last}.${id.slice(-8)}@example.com`.toLowerCase(),
    name: `${first} ${last}`,
    passwordHash: null,
    role: "CUSTOMER",
    image: null,
    isEmailVerified: true,
    createdAt: joined,
    updatedAt: joined,
  };
  const address = { ...place, address1: `${1 + Math.floor(random() * 9000)} ${pick(random, ["Main", "Oak", "Pine", "Elm", "Cedar"])} St`, address2: null };
  return { user, address, taxRate, written: false };
}
