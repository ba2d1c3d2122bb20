import { cuid2Ids } from "../../src/adapters/system.ts";
import type { Location } from "../../src/domain/location.ts";
import type { OrderedLine } from "../../src/domain/order.ts";
import type { Product } from "../../src/domain/product.ts";
import type { User } from "../../src/domain/user.ts";

const createId = cuid2Ids.next;

let sequence = 0;

export function aProduct(overrides: Partial<Product> = {}): Product {
  const n = ++sequence;
  const createdAt = overrides.createdAt ?? new Date(Date.UTC(2026, 0, 1, 0, 0, n));
  return {
    id: createId(),
    name: `Test Sauce ${n}`,
    slug: `test-sauce-${n}`,
    description: "A sauce for tests.",
    price: 999,
    compareAtPrice: null,
    sku: `TEST-${n}`,
    featuredImage: `https://images.example.com/test-${n}.jpg`,
    images: [`https://images.example.com/test-${n}.jpg`],
    heatLevel: 2,
    inventory: 10,
    isActive: true,
    isFeatured: false,
    createdAt,
    updatedAt: createdAt,
    ...overrides,
  };
}

export function aLocation(overrides: Partial<Location> = {}): Location {
  const n = ++sequence;
  return {
    id: createId(),
    name: `Test Shop ${n}`,
    address1: `${n} Main St`,
    address2: null,
    city: "Austin",
    state: "TX",
    postalCode: "78701",
    country: "US",
    latitude: 30.2672,
    longitude: -97.7431,
    phone: null,
    website: null,
    ...overrides,
  };
}

export function aUser(overrides: Partial<User> = {}): User {
  const n = ++sequence;
  const createdAt = overrides.createdAt ?? new Date(Date.UTC(2026, 0, 1, 0, 0, n));
  return {
    id: createId(),
    email: `user-${n}@example.com`,
    name: `Test User ${n}`,
    passwordHash: "plain:secret123",
    role: "CUSTOMER",
    image: null,
    isEmailVerified: false,
    createdAt,
    updatedAt: createdAt,
    ...overrides,
  };
}

/** An order's lines for these products (quantities 1, 2, 3, … in turn), as newOrder takes them from a cart. */
export function orderedLinesOf(products: readonly Product[]): OrderedLine[] {
  return products.map((p, i) => ({
    productId: p.id,
    quantity: i + 1,
    product: { name: p.name, sku: p.sku, featuredImage: p.featuredImage, price: p.price },
  }));
}
