import type { LogLevel, Logger } from "../application/ports/system.ts";

export type { Logger };

const ranks: Record<LogLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** Structured JSON lines on stdout, one per event. */
export function createJsonLogger(minimum: LogLevel | "silent" = "info", write = (line: string) => console.log(line)): Logger {
  const at = (level: LogLevel) => (event: string, fields?: Record<string, unknown>) => {
    if (ranks[level] < ranks[minimum]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level, event, ...fields }));
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

export const silentLogger: Logger = createJsonLogger("silent");
