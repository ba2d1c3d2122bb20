import { describe, expect, test } from "bun:test";
import { EARTH_RADIUS_MILES, boundingBox, distanceMiles } from "../../src/domain/location.ts";

const austin = { latitude: 30.2672, longitude: -97.7431 };
const dallas = { latitude: 32.7767, longitude: -96.797 };
const newYork = { latitude: 40.7128, longitude: -74.006 };
const losAngeles = { latitude: 34.0522, longitude: -118.2437 };

/** The point `miles` away from `from` along the initial bearing (degrees), on the same sphere. */
function destination(from: { latitude: number; longitude: number }, bearing: number, miles: number) {
  const rad = Math.PI / 180;
  const angle = miles / EARTH_RADIUS_MILES;
  const lat1 = from.latitude * rad;
  const theta = bearing * rad;
  const lat2 = Math.asin(Math.sin(lat1) * Math.cos(angle) + Math.cos(lat1) * Math.sin(angle) * Math.cos(theta));
  const dLng = Math.atan2(Math.sin(theta) * Math.sin(angle) * Math.cos(lat1), Math.cos(angle) - Math.sin(lat1) * Math.sin(lat2));
  const longitude = ((((from.longitude + dLng / rad + 180) % 360) + 360) % 360) - 180;
  return { latitude: lat2 / rad, longitude };
}

describe("distances", () => {
  test("haversine gives the known great-circle distances", () => {
    expect(distanceMiles(austin, austin)).toBe(0);
    expect(distanceMiles(austin, dallas)).toBeCloseTo(182.4, 0);
    expect(distanceMiles(newYork, losAngeles)).toBeCloseTo(2445.6, 0);
    expect(distanceMiles(dallas, austin)).toBeCloseTo(distanceMiles(austin, dallas), 9);
  });

  test("the bounding box holds every point of the circle, near the equator, far north and around a pole", () => {
    const centers = [austin, { latitude: 64.8378, longitude: -147.7164 }, { latitude: -70, longitude: 10 }, { latitude: 85, longitude: 0 }];
    let checked = 0;
    for (const center of centers) {
      for (const radius of [25, 200, 500]) {
        const box = boundingBox(center, radius);
        for (let bearing = 0; bearing < 360; bearing += 5) {
          const point = destination(center, bearing, radius * 0.999);
          expect(distanceMiles(center, point)).toBeCloseTo(radius * 0.999, 6);
          expect(point.latitude).toBeGreaterThanOrEqual(box.minLatitude);
          expect(point.latitude).toBeLessThanOrEqual(box.maxLatitude);
          expect(point.longitude).toBeGreaterThanOrEqual(box.minLongitude);
          expect(point.longitude).toBeLessThanOrEqual(box.maxLongitude);
          checked++;
        }
      }
    }
    expect(checked).toBe(4 * 3 * 72);
  });

  test("a circle that reaches a pole covers every longitude", () => {
    const box = boundingBox({ latitude: 85, longitude: 0 }, 500);
    expect(box).toEqual({ minLatitude: expect.any(Number), maxLatitude: 90, minLongitude: -180, maxLongitude: 180 });
  });

  test("a box across the antimeridian covers every longitude", () => {
    const box = boundingBox({ latitude: 51, longitude: 179.9 }, 100);
    expect(box.minLongitude).toBe(-180);
    expect(box.maxLongitude).toBe(180);
  });
});
