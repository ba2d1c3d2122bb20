import type { PageRequest } from "./paging.ts";

export interface Location {
  id: string;
  name: string;
  address1: string;
  address2: string | null;
  city: string;
  state: string;
  postalCode: string;
  country: string;
  latitude: number;
  longitude: number;
  phone: string | null;
  website: string | null;
}

export interface LocationQuery extends PageRequest {
  state?: string;
  q?: string;
}

export interface GeoPoint {
  latitude: number;
  longitude: number;
}

export interface NearbyQuery extends GeoPoint {
  radiusMiles: number;
  limit: number;
}

export const DEFAULT_RADIUS_MILES = 25;
export const MAX_RADIUS_MILES = 500;
export const EARTH_RADIUS_MILES = 3958.8;

const radians = (degrees: number) => (degrees * Math.PI) / 180;
const degrees = (radians: number) => (radians * 180) / Math.PI;

/** Great-circle distance by the haversine formula. */
export function distanceMiles(a: GeoPoint, b: GeoPoint): number {
  const dLat = radians(b.latitude - a.latitude);
  const dLng = radians(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(radians(a.latitude)) * Math.cos(radians(b.latitude)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A latitude/longitude box that contains every point within the radius: a cheap, indexable pre-filter. */
export function boundingBox(center: GeoPoint, radiusMiles: number) {
  const angle = radiusMiles / EARTH_RADIUS_MILES;
  const latDelta = degrees(angle);
  const minLatitude = center.latitude - latDelta;
  const maxLatitude = center.latitude + latDelta;
  // A circle around a pole spans every longitude; otherwise its widest longitude spread on the
  // sphere is asin(sin(angle) / cos(latitude)) (more than angle / cos(latitude) far from the equator).
  const reachesPole = minLatitude <= -90 || maxLatitude >= 90;
  const lngDelta = reachesPole ? 180 : degrees(Math.asin(Math.sin(angle) / Math.cos(radians(center.latitude))));
  const wraps = reachesPole || center.longitude - lngDelta < -180 || center.longitude + lngDelta > 180;
  return {
    minLatitude: Math.max(-90, minLatitude),
    maxLatitude: Math.min(90, maxLatitude),
    minLongitude: wraps ? -180 : center.longitude - lngDelta,
    maxLongitude: wraps ? 180 : center.longitude + lngDelta,
  };
}

export function matchesLocationQuery(location: Location, query: LocationQuery): boolean {
  const q = query.q?.normalize("NFC").toLowerCase();
  return (
    (query.state === undefined || location.state === query.state) &&
    (q === undefined || location.name.toLowerCase().includes(q) || location.city.toLowerCase().includes(q) || location.postalCode.startsWith(q))
  );
}

/** Listing order: by name, case-insensitive and by code point (PostgreSQL: lower(name) COLLATE "C"), then id. */
export function compareLocations(a: Location, b: Location): number {
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
