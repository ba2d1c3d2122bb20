import type { Deps } from "../ports/index.ts";
import { messageOf } from "../../domain/errors.ts";

export type Health = { status: "ok" } | { status: "unavailable"; reason: string };

export async function checkHealth(deps: Pick<Deps, "database">): Promise<Health> {
  try {
    await deps.database.ping();
    return { status: "ok" };
  } catch (error) {
    return { status: "unavailable", reason: messageOf(error) };
  }
}
