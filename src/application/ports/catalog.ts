import type { Location, LocationQuery, NearbyQuery } from "../../domain/location.ts";
import type { Paged } from "../../domain/paging.ts";
import type { Product, ProductQuery } from "../../domain/product.ts";

export interface ProductReader {
  /** Active products matching the query, one page of them, and how many match in all. */
  list(query: ProductQuery): Promise<Paged<Product>>;
  /** Looks a product up by id or by slug, active or not. */
  findByIdOrSlug(key: string): Promise<Product | null>;
  findById(id: string): Promise<Product | null>;
}

export interface StockLine {
  productId: string;
  quantity: number;
}

/** A line stock could not cover: the product, and what it has. */
export interface StockShortfall {
  productId: string;
  productName: string;
  requested: number;
  available: number;
  /** False when the product was taken off sale (then nothing of it is available). */
  onSale: boolean;
}

export type ProductChanges = Partial<Omit<Product, "id" | "createdAt" | "updatedAt">> & { updatedAt: Date };

export interface ProductRepository extends ProductReader {
  /** Throws DomainError "product.conflict" when the sku or slug is taken. */
  create(product: Product): Promise<void>;
  /** Throws DomainError "product.conflict" when the new sku or slug is taken. Null when there is no such product. */
  update(id: string, changes: ProductChanges): Promise<Product | null>;
  /**
   * Takes the quantities from stock, each only if the product is on sale and has it: stock never
   * goes below zero. Returns the lines that could not be taken (none: all were). The caller's
   * transaction must be given up when any could not, as the others were taken.
   */
  takeStock(lines: readonly StockLine[], at: Date): Promise<StockShortfall[]>;
  returnStock(lines: readonly StockLine[], at: Date): Promise<void>;
}

export type LocationWithDistance = Location & { distanceMiles: number };

export interface LocationReader {
  list(query: LocationQuery): Promise<Paged<Location>>;
  /** Locations within the radius, nearest first, at most `limit`; `total` counts all within it. */
  nearby(query: NearbyQuery): Promise<Paged<LocationWithDistance>>;
  findByNameAndPostalCode(name: string, postalCode: string): Promise<Location | null>;
}

export interface LocationRepository extends LocationReader {
  create(location: Location): Promise<void>;
}
