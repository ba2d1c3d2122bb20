export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

export interface PageRequest {
  page: number;
  limit: number;
}

export interface Paged<T> {
  items: T[];
  total: number;
}

export function offsetOf({ page, limit }: PageRequest): number {
  return (page - 1) * limit;
}
