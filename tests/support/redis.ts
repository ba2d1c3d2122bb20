import type { Subprocess } from "bun";
import { createServer } from "node:net";

/** A free TCP port on loopback (asked of the kernel, then given back for the caller to take). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * A redis-server of the test's own, on a free port, that the test may stop and start again (an
 * outage): never the machine's Redis. Nothing is saved to disk.
 */
export async function startRedisServer() {
  const port = await freePort();
  let child: Subprocess | null = null;
  const url = `redis://127.0.0.1:${port}`;

  async function start() {
    child = Bun.spawn(["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdout: "ignore",
      stderr: "inherit",
    });
    for (let i = 0; i < 200; i++) {
      const ping = Bun.spawnSync(["redis-cli", "-p", String(port), "ping"]);
      if (ping.stdout.toString().trim() === "PONG") return;
      await Bun.sleep(10);
    }
    throw new Error(`redis-server on ${port} did not answer`);
  }

  /** Stops it (SIGTERM; a frozen server is thawed first, or it would never act on the signal), or with `signal` SIGKILL kills it. */
  async function stop(signal: "SIGTERM" | "SIGKILL" = "SIGTERM") {
    if (!child) return;
    if (signal === "SIGTERM") child.kill("SIGCONT");
    child.kill(signal);
    await child.exited;
    child = null;
  }

  await start();
  return {
    url,
    port,
    start,
    stop,
    /** Killed outright (SIGKILL): its connections reset, nothing said. */
    kill: () => stop("SIGKILL"),
    /** Freezes the server (it keeps its connections but answers nothing), and thaws it. */
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
  };
}

export type TestRedis = Awaited<ReturnType<typeof startRedisServer>>;
