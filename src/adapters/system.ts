import { createId } from "@paralleldrive/cuid2";
import type { Clock, Ids } from "../application/ports.ts";

export const systemClock: Clock = { now: () => new Date() };
export const cuid2Ids: Ids = { next: createId };
