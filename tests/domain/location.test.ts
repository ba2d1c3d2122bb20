import { describe, expect, test } from "bun:test";
import { boundingBox, distanceMiles } from "../../src/domain/location.ts";

const austin = { latitude: 30.2672, longitude: -97.7431 };
const dallas = { latitude: 32.7767, longitude: -96.797 };
const newYork = { latitude: 40.7128, longitude: -74.006 };
const losAngeles = { latitude: 34.0522, longitude: -118.2437 };

describe("distances", () => {
  test("haversine gives the known great-circle distances", () => {
    expect(distanceMiles(austin, austin)).toBe(0);
    expect(distanceMiles(austin, dallas)).toBeCloseTo(182.4, 0);
    expect(distanceMiles(newYork, losAngeles)).toBeCloseTo(2445.6, 0);
    expect(distanceMiles(dallas, austin)).toBeCloseTo(distanceMiles(austin, dallas), 9);
  });

  test("the bounding box holds every point of the circle", () => {
    const box = boundingBox(austin, 200);
    for (let bearing = 0; bearing < 360; bearing += 15) {
      // A point ~199.9 miles away in this direction, by small-step integration along the bearing.
      const rad = (bearing * Math.PI) / 180;
      const dLat = (199.9 / 69.05) * Math.cos(rad);
      const point = { latitude: austin.latitude + dLat, longitude: austin.longitude };
      point.longitude += ((199.9 / 69.05) * Math.sin(rad)) / Math.cos(((austin.latitude + dLat / 2) * Math.PI) / 180);
      if (distanceMiles(austin, point) > 200) continue;
      expect(point.latitude).toBeGreaterThanOrEqual(box.minLatitude);
      expect(point.latitude).toBeLessThanOrEqual(box.maxLatitude);
      expect(point.longitude).toBeGreaterThanOrEqual(box.minLongitude);
      expect(point.longitude).toBeLessThanOrEqual(box.maxLongitude);
    }
  });

  test("a box across the antimeridian covers every longitude", () => {
    const box = boundingBox({ latitude: 51, longitude: 179.9 }, 100);
    expect(box.minLongitude).toBe(-180);
    expect(box.maxLongitude).toBe(180);
  });
});
