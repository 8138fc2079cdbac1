/**
 * The TCP connection under postgres.js, opened with the Workers socket API.
 *
 * postgres.js has a Workers build, but its TLS negotiation there hangs when a server
 * declines TLS (sslmode=prefer) and leaves unhandled rejections behind when a handshake
 * fails. So this module opens the socket and negotiates TLS itself (PostgreSQL's
 * SSLRequest, then startTls()), and hands postgres.js a ready socket through its `socket`
 * option, shaped like the small part of Node's net.Socket it uses.
 */
import { ConnectorError } from "../connector-error";
import type { SslMode } from "./parameters";

// Int32 length 8, then the SSLRequest code 80877103.
const SSL_REQUEST = new Uint8Array([0, 0, 0, 8, 4, 210, 22, 47]);
const TLS_ACCEPTED = 0x53; // "S"
const TLS_DECLINED = 0x4e; // "N"

/** What opening a socket needs to know. Aborting `signal` closes every socket opened here. */
export interface SocketRequest {
  open: (secureTransport: "off" | "starttls") => Socket;
  sslmode: SslMode;
  /** "host:port", for messages. */
  where: string;
  signal: AbortSignal;
}

/** Opens the connection and negotiates TLS as `sslmode` says. Throws ConnectorError. */
export async function openPostgresSocket(request: SocketRequest): Promise<PostgresJsSocket> {
  if (request.sslmode === "disable") return new PostgresJsSocket(await opened(request, request.open("off")), false);
  try {
    return await openWithTls(request);
  } catch (error) {
    const tlsProblem = error instanceof ConnectorError && error.kind === "TLS_FAILED";
    if (request.sslmode === "prefer" && tlsProblem && !request.signal.aborted) {
      return new PostgresJsSocket(await opened(request, request.open("off")), false);
    }
    throw error;
  }
}

async function openWithTls(request: SocketRequest): Promise<PostgresJsSocket> {
  const tcp = await opened(request, request.open("starttls"));
  try {
    const writer = tcp.writable.getWriter();
    await writer.write(SSL_REQUEST);
    writer.releaseLock();
    const reader = tcp.readable.getReader();
    const { value, done } = await reader.read();
    reader.releaseLock();
    if (done || !value) throw new ConnectorError("UNREACHABLE", `${request.where} closed the connection before answering.`);
    // Exactly one byte: anything sent after "S" before the handshake could be injected (CVE-2021-23222).
    if (value.byteLength !== 1 || (value[0] !== TLS_ACCEPTED && value[0] !== TLS_DECLINED)) {
      throw new ConnectorError("UPSTREAM_ERROR", `${request.where} did not answer like a PostgreSQL server.`);
    }
    if (value[0] === TLS_DECLINED) {
      if (request.sslmode === "require") {
        throw new ConnectorError("TLS_FAILED", `${request.where} does not accept TLS connections, and the TLS mode is "require".`);
      }
      return new PostgresJsSocket(tcp, false);
    }
    const tls = quiet(tcp.startTls());
    request.signal.addEventListener("abort", () => void tls.close().catch(() => {}));
    try {
      await tls.opened;
    } catch {
      throw new ConnectorError(
        "TLS_FAILED",
        `The TLS handshake with ${request.where} failed: the server's certificate must be valid for this host name and issued by a publicly trusted authority.`,
      );
    }
    return new PostgresJsSocket(tls, true);
  } catch (error) {
    void tcp.close().catch(() => {});
    throw error;
  }
}

/** Waits until the TCP connection is open; closes it if the caller gives up first. */
async function opened(request: SocketRequest, socket: Socket): Promise<Socket> {
  quiet(socket);
  const onAbort = () => void socket.close().catch(() => {});
  request.signal.addEventListener("abort", onAbort);
  try {
    await socket.opened;
    return socket;
  } catch {
    throw new ConnectorError(
      "UNREACHABLE",
      `Could not connect to ${request.where}: nothing accepted the connection (wrong host or port, server down, or blocked by a firewall).`,
    );
  }
}

// A socket's promises reject when it fails; those failures are handled where they matter.
function quiet(socket: Socket): Socket {
  socket.closed.catch(() => {});
  socket.opened.catch(() => {});
  return socket;
}

type Listener = (...args: unknown[]) => void;

interface NodeBuffer extends Uint8Array {
  readUInt32BE(offset: number): number;
}
interface BufferConstructor {
  from(buffer: ArrayBufferLike, byteOffset: number, length: number): NodeBuffer;
}

// postgres.js parses Node Buffers; the nodejs_compat flag makes Buffer a global in Workers.
function bufferFrom(chunk: Uint8Array): NodeBuffer {
  const { Buffer } = globalThis as unknown as { Buffer?: BufferConstructor };
  if (!Buffer) throw new Error("Buffer is missing: the PostgreSQL connector needs the nodejs_compat compatibility flag.");
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/**
 * A Workers socket that looks enough like net.Socket for postgres.js: events "data",
 * "error" and "close"; write(), end(), destroy(); readyState.
 */
export class PostgresJsSocket {
  readyState: "open" | "closed" = "open";
  private readonly listeners = new Map<string, Listener[]>();
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private reading = false;
  private closing = false;

  constructor(
    private readonly socket: Socket,
    /** True when TLS was negotiated. */
    readonly encrypted: boolean,
  ) {
    this.writer = socket.writable.getWriter();
    this.writer.closed.catch(() => {});
  }

  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    // Start reading once postgres.js listens, so that no byte is emitted to nobody.
    if (event === "data" && !this.reading) {
      this.reading = true;
      void this.pump();
    }
    return this;
  }

  once(event: string, listener: Listener): this {
    const wrapper: Listener = (...args) => {
      this.removeListener(event, wrapper);
      listener(...args);
    };
    return this.on(event, wrapper);
  }

  removeListener(event: string, listener: Listener): this {
    this.listeners.set(event, (this.listeners.get(event) ?? []).filter((l) => l !== listener));
    return this;
  }

  removeAllListeners(event?: string): this {
    if (event === undefined) this.listeners.clear();
    else this.listeners.delete(event);
    return this;
  }

  write(data: Uint8Array, callback?: () => void): boolean {
    this.writer.write(data).then(
      () => callback?.(),
      (error: unknown) => this.fail(error),
    );
    return true;
  }

  end(data?: Uint8Array): void {
    if (this.closing) return;
    this.closing = true;
    const flush = data ? this.writer.write(data) : Promise.resolve();
    void flush.catch(() => {}).finally(() => this.socket.close().catch(() => {}));
    // A socket nobody reads from will not notice its own end.
    if (!this.reading) this.markClosed(false);
  }

  destroy(): void {
    this.end();
  }

  // Flow control is only used by COPY streams, which this service never runs.
  pause(): void {}
  resume(): void {}

  private async pump(): Promise<void> {
    const reader = this.socket.readable.getReader();
    let failed = false;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.emit("data", bufferFrom(value as Uint8Array));
      }
    } catch (error) {
      failed = !this.closing;
      if (failed) this.emit("error", connectionLost(error));
    } finally {
      this.markClosed(failed);
    }
  }

  private fail(error: unknown): void {
    if (this.closing) return;
    this.emit("error", connectionLost(error));
    this.end();
  }

  private markClosed(hadError: boolean): void {
    if (this.readyState === "closed") return;
    this.readyState = "closed";
    this.emit("close", hadError);
  }

  private emit(event: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(event) ?? []) listener(...args);
  }
}

function connectionLost(error: unknown): Error {
  const detail = error instanceof Error ? error.message : String(error);
  return Object.assign(new Error(`connection lost: ${detail}`), { code: "CONNECTION_LOST" });
}
