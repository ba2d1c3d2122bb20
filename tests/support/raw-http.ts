import { type Socket, connect } from "node:net";

// Raw HTTP/1.1 over a socket: what no HTTP client would send, and what the server answers to it.

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One connection, bytes written as they are, answers read off it one at a time (HTTP/1.1 framing by Content-Length). */
export function connection(port: number) {
  const socket: Socket = connect(port, "127.0.0.1");
  let buffered = Buffer.alloc(0);
  let closed = false;
  let wake = () => {};
  socket.on("data", (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    wake();
  });
  socket.on("close", () => {
    closed = true;
    wake();
  });
  socket.on("error", () => undefined);
  const changed = () => new Promise<void>((resolve) => (wake = resolve));

  function take(): Answer | null {
    const end = buffered.indexOf("\r\n\r\n");
    if (end === -1) return null;
    const [statusLine = "", ...lines] = buffered.subarray(0, end).toString("latin1").split("\r\n");
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
    const length = Number(headers["content-length"] ?? 0);
    if (buffered.length < end + 4 + length) return null;
    const body = buffered.subarray(end + 4, end + 4 + length).toString("utf8");
    buffered = buffered.subarray(end + 4 + length);
    return { status: Number(statusLine.split(" ")[1]), headers, body };
  }

  return {
    socket,
    /** Writes, waiting while the socket's buffer is full, so a large body goes as fast as the server reads it. */
    async write(bytes: string | Uint8Array) {
      if (!socket.write(bytes)) await new Promise((resolve) => socket.once("drain", resolve));
    },
    /** The next answer; null when the server closed the connection without one. */
    async answer(): Promise<Answer | null> {
      for (;;) {
        const next = take();
        if (next) return next;
        if (closed) return null;
        await changed();
      }
    },
    /** Resolves once the server has closed the connection. */
    async closedByServer() {
      while (!closed) await changed();
    },
    end: () => socket.destroy(),
  };
}

export async function ask(port: number, request: string | Uint8Array): Promise<Answer | null> {
  const c = connection(port);
  try {
    await c.write(request);
    return await c.answer();
  } finally {
    c.end();
  }
}
