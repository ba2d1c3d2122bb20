import { z } from "zod";

const flag = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATABASE_URL: z
    .string()
    .refine((v) => /^postgres(ql)?:\/\//.test(v) || v === "pglite://memory", {
      message: "must be postgres://… or pglite://memory",
    })
    .optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  TRUST_PROXY: flag.default(false),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
});

export type DatabaseTarget =
  | { kind: "postgres"; url: string }
  | { kind: "pglite"; dataDir: string | null };

export interface Config {
  env: "development" | "production" | "test";
  port: number;
  publicUrl: string;
  database: DatabaseTarget;
  dataDir: string;
  trustProxy: boolean;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Reads the environment; an unset variable and an empty one mean the same. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    database: !e.DATABASE_URL
      ? { kind: "pglite", dataDir: e.DATA_DIR }
      : e.DATABASE_URL === "pglite://memory"
        ? { kind: "pglite", dataDir: null }
        : { kind: "postgres", url: e.DATABASE_URL },
    dataDir: e.DATA_DIR,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
  };
}
