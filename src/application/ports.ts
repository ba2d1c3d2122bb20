import type { Location, LocationQuery, NearbyQuery } from "../domain/location.ts";
import type { Paged } from "../domain/paging.ts";
import type { Product, ProductQuery } from "../domain/product.ts";

export interface ProductRepository {
  /** Active products matching the query, one page of them, and how many match in all. */
  list(query: ProductQuery): Promise<Paged<Product>>;
  /** Looks a product up by id or by slug, active or not. */
  findByIdOrSlug(key: string): Promise<Product | null>;
  create(product: Product): Promise<void>;
}

export type LocationWithDistance = Location & { distanceMiles: number };

export interface LocationRepository {
  list(query: LocationQuery): Promise<Paged<Location>>;
  /** Locations within the radius, nearest first. */
  nearby(query: NearbyQuery): Promise<LocationWithDistance[]>;
  findByNameAndPostalCode(name: string, postalCode: string): Promise<Location | null>;
  create(location: Location): Promise<void>;
}

/** The repositories that take part in a transaction. */
export interface Repositories {
  products: ProductRepository;
  locations: LocationRepository;
}

export interface UnitOfWork {
  /** Runs the work in one transaction: all of its writes land, or none does. */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
}

export interface Clock {
  now(): Date;
}

export interface Ids {
  /** A new CUID2. */
  next(): string;
}

export interface DatabaseProbe {
  /** Resolves when the database answers a query; rejects otherwise. */
  ping(): Promise<void>;
}

export interface Deps extends Repositories {
  uow: UnitOfWork;
  clock: Clock;
  ids: Ids;
  database: DatabaseProbe;
}
