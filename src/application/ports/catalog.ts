import type { Location, LocationQuery, NearbyQuery } from "../../domain/location.ts";
import type { Paged } from "../../domain/paging.ts";
import type { AdminProductQuery, Product, ProductQuery } from "../../domain/product.ts";

export interface ProductReader {
  /** Active products matching the query, one page of them, and how many match in all. */
  list(query: ProductQuery): Promise<Paged<Product>>;
  /** Looks a product up by id or by slug, active or not. */
  findByIdOrSlug(key: string): Promise<Product | null>;
  findById(id: string): Promise<Product | null>;
  /** Every product the back office's filters keep, on sale or not, newest first: one page, and how many in all. */
  listForAdmin(query: AdminProductQuery): Promise<Paged<Product>>;
  /** By exact SKU, on sale or not. */
  findBySku(sku: string): Promise<Product | null>;
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
  /**
   * Throws DomainError "product.conflict" when the new sku or slug is taken. Null when there is no
   * such product, or when `expectedInventory` is given and the product holds another quantity:
   * that check and the write are one statement, so no sale can slip in between them.
   */
  update(id: string, changes: ProductChanges, expectedInventory?: number): Promise<Product | null>;
  /**
   * Adds `delta` (negative: takes) to the product's stock in one conditional statement, on sale or
   * not, and answers the product as it left it. Null, changing nothing, when there is no such
   * product or the stock would fall below zero, or be added to past MAX_INVENTORY (adjustmentFits).
   */
  adjustInventory(id: string, delta: number, at: Date): Promise<Product | null>;
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
