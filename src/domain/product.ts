import type { Cents } from "./money.ts";
import type { PageRequest } from "./paging.ts";

export const MIN_HEAT_LEVEL = 0;
export const MAX_HEAT_LEVEL = 5;
/**
 * The most stock staff may set on a product, or add up to. Units an ended order gives back go back
 * on the shelf all the same (they exist), so a product may hold more; an adjustment then still takes
 * units, and setting it outright names what it holds (EXPECTED_INVENTORY_MAX).
 */
export const MAX_INVENTORY = 1_000_000;
/** The most a product can hold at all (PostgreSQL's integer): what a set-outright's `expectedInventory` may name. */
export const EXPECTED_INVENTORY_MAX = 2_147_483_647;
/** The most one inventory adjustment may add or take. */
export const MAX_INVENTORY_DELTA = MAX_INVENTORY;
export const MAX_ADJUSTMENT_REASON_LENGTH = 200;
/** LOW_STOCK_THRESHOLD's default: the back office's low stock is this many units or fewer. */
export const DEFAULT_LOW_STOCK_THRESHOLD = 5;

export interface Product {
  id: string;
  name: string;
  slug: string;
  description: string;
  price: Cents;
  compareAtPrice: Cents | null;
  sku: string;
  featuredImage: string;
  images: string[];
  heatLevel: number;
  inventory: number;
  isActive: boolean;
  isFeatured: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const PRODUCT_SORTS = ["newest", "price_asc", "price_desc", "name_asc", "name_desc", "heat_asc", "heat_desc"] as const;
export type ProductSort = (typeof PRODUCT_SORTS)[number];

export interface ProductQuery extends PageRequest {
  search?: string;
  heatLevel?: number;
  minPrice?: Cents;
  maxPrice?: Cents;
  sort: ProductSort;
}

/** The catalog's filter rules, as the in-memory repository applies them; PostgreSQL's are its own SQL, and the ProductRepository contract suite holds both to the same results. */
export function matchesProductQuery(product: Product, query: ProductQuery): boolean {
  const search = query.search?.normalize("NFC").toLowerCase();
  return (
    product.isActive &&
    (search === undefined || product.name.toLowerCase().includes(search) || product.description.toLowerCase().includes(search)) &&
    (query.heatLevel === undefined || product.heatLevel === query.heatLevel) &&
    (query.minPrice === undefined || product.price >= query.minPrice) &&
    (query.maxPrice === undefined || product.price <= query.maxPrice)
  );
}

/**
 * A SKU as the shop keeps and looks it up: in Unicode's compatibility form (NFKC: fullwidth `ＨＡＢ-1`
 * is `HAB-1`, a no-break space a space), then trimmed (NFKC may make a space of a mark).
 */
export const skuOf = (text: string): string => text.normalize("NFKC").trim();

/** The back office's product list (decisions §12): every product, on sale or not, newest first. */
export interface AdminProductQuery extends PageRequest {
  /** Part of the name or the SKU, in any case. */
  q?: string;
  isActive?: boolean;
  /** Only products with this many units or fewer (low stock). */
  maxInventory?: number;
}

/** The back office's filters, as the in-memory repository applies them (the contract suite holds PostgreSQL's SQL to the same). */
export function matchesAdminProductQuery(product: Product, query: AdminProductQuery): boolean {
  const q = query.q?.normalize("NFC").toLowerCase();
  return (
    (q === undefined || product.name.toLowerCase().includes(q) || product.sku.toLowerCase().includes(q)) &&
    (query.isActive === undefined || product.isActive === query.isActive) &&
    (query.maxInventory === undefined || product.inventory <= query.maxInventory)
  );
}

/** Units added to (or, negative, taken from) a product's stock, and why: for the audit log. */
export interface InventoryAdjustment {
  delta: number;
  reason: string;
}

/** What is wrong with an adjustment, by field: a whole, non-zero number of units within bounds, and a reason of 1 to 200 characters. */
export function inventoryAdjustmentIssues({ delta, reason }: InventoryAdjustment): { path: string; message: string }[] {
  const issues = [];
  if (delta === 0) issues.push({ path: "delta", message: "must not be 0" });
  else if (!Number.isInteger(delta) || Math.abs(delta) > MAX_INVENTORY_DELTA) {
    issues.push({ path: "delta", message: `must be a whole number of units from -${MAX_INVENTORY_DELTA} to ${MAX_INVENTORY_DELTA}` });
  }
  // Characters as the API's schema counts them (code points): a chili is one, not two UTF-16 units.
  const characters = [...reason].length;
  if (characters < 1 || characters > MAX_ADJUSTMENT_REASON_LENGTH) {
    issues.push({ path: "reason", message: `must be 1 to ${MAX_ADJUSTMENT_REASON_LENGTH} characters` });
  }
  return issues;
}

/**
 * Whether an adjustment of `delta` units may be made to stock of `inventory`: never below zero, and
 * never added past MAX_INVENTORY; units taken from stock above it (given back by ended orders) are.
 */
export function adjustmentFits(inventory: number, delta: number): boolean {
  const after = inventory + delta;
  return after >= 0 && (delta < 0 || after <= MAX_INVENTORY);
}

type Comparator = (a: Product, b: Product) => number;
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Case-insensitive, by code point: the same order as PostgreSQL's lower(name) COLLATE "C". */
const byName: Comparator = (a, b) => compareText(a.name.toLowerCase(), b.name.toLowerCase());
const byId: Comparator = (a, b) => compareText(a.id, b.id);

/** Sort orders; ties always break on id so that pages never overlap. */
export const productComparators: Record<ProductSort, Comparator> = {
  newest: (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || byId(a, b),
  price_asc: (a, b) => a.price - b.price || byId(a, b),
  price_desc: (a, b) => b.price - a.price || byId(a, b),
  name_asc: (a, b) => byName(a, b) || byId(a, b),
  name_desc: (a, b) => byName(b, a) || byId(a, b),
  heat_asc: (a, b) => a.heatLevel - b.heatLevel || byId(a, b),
  heat_desc: (a, b) => b.heatLevel - a.heatLevel || byId(a, b),
};

/**
 * Latin letters that no accent taken off makes ASCII, as they are written without their marks
 * ("Heiße Soße" was `hei-e-so-e`; found by an attack).
 */
const SPELLED_OUT: Readonly<Record<string, string>> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", ł: "l", đ: "d", ð: "d", þ: "th", ı: "i", ħ: "h" };
const SPELLED_OUT_LETTERS = new RegExp(`[${Object.keys(SPELLED_OUT).join("")}]`, "g");

/** A URL slug from a product name: "Ghost Pepper Fury!" → "ghost-pepper-fury", "Ærø Chili" → "aero-chili". */
export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(SPELLED_OUT_LETTERS, (letter) => SPELLED_OUT[letter]!)
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 200)
    .replace(/^-+|-+$/g, "");
}
