/**
 * A TCP proxy on loopback in front of a real server (OpenSearch, Fuseki), that a test cuts
 * and restores: a real network fault without stopping an engine other tests share.
 *
 * Closed, the proxy refuses new connections and resets the open ones, so requests in
 * flight fail mid-way; opened again on the same port, clients reconnect as they would to a
 * server that came back. Held, it keeps what clients send until released: a request that
 * is slow to reach the server, without timing tricks. Given a certificate, it terminates
 * TLS: an HTTPS front for a server that speaks plain HTTP.
 */

/** The server certificate and key (PEM) of a proxy that terminates TLS. */
export interface ProxyTls {
  cert: string;
  key: string;
}

/** A TCP proxy on loopback in front of a real server, that can be cut and restored. */
export class LoopbackProxy {
  readonly #target: Deno.ConnectOptions;
  readonly #tls?: ProxyTls;
  readonly #connections = new Set<Deno.Conn>();
  #listener?: Deno.Listener;
  #held?: PromiseWithResolvers<void>;
  /** The port it listens on; 0 until first opened. */
  port = 0;

  /** With `tls`, clients speak TLS to the proxy, and the proxy plain TCP to the target. */
  constructor(target: Deno.ConnectOptions, tls?: ProxyTls) {
    this.#target = target;
    this.#tls = tls;
  }

  /** A proxy in front of the host and port of `url` (not yet open). */
  static to(url: string, tls?: ProxyTls): LoopbackProxy {
    const target = new URL(url);
    const defaultPort = target.protocol === "https:" ? 443 : 80;
    return new LoopbackProxy({
      hostname: target.hostname,
      port: Number(target.port || defaultPort),
    }, tls);
  }

  /** `url` with its host and port replaced by the proxy's, https: if it terminates TLS. */
  rewrite(url: string): string {
    const rewritten = new URL(url);
    if (this.#tls) rewritten.protocol = "https:";
    rewritten.hostname = "127.0.0.1";
    rewritten.port = String(this.port);
    return rewritten.href;
  }

  /** Starts accepting on `port` (a free one the first time). */
  open(port = this.port): void {
    this.#listener = this.#tls
      ? Deno.listenTls({ hostname: "127.0.0.1", port, ...this.#tls })
      : Deno.listen({ hostname: "127.0.0.1", port });
    this.port = (this.#listener.addr as Deno.NetAddr).port;
    this.#accept(this.#listener);
  }

  /** Holds every byte clients send, on open connections too, until {@link release}. */
  hold(): void {
    this.#held ??= Promise.withResolvers<void>();
  }

  /** Lets held and later bytes through. */
  release(): void {
    this.#held?.resolve();
    this.#held = undefined;
  }

  /** Stops accepting and cuts every open connection: clients get refused or reset. */
  close(): void {
    this.release();
    this.#listener?.close();
    this.#listener = undefined;
    for (const connection of this.#connections) closeQuietly(connection);
    this.#connections.clear();
  }

  async #accept(listener: Deno.Listener): Promise<void> {
    try {
      for await (const client of listener) this.#pipe(client);
    } catch {
      // The listener was closed.
    }
  }

  async #pipe(client: Deno.Conn): Promise<void> {
    this.#connections.add(client);
    let upstream: Deno.Conn;
    try {
      upstream = await Deno.connect(this.#target);
    } catch {
      this.#connections.delete(client);
      closeQuietly(client);
      return;
    }
    this.#connections.add(upstream);
    await Promise.allSettled([
      client.readable.pipeThrough(this.#gate()).pipeTo(upstream.writable),
      upstream.readable.pipeTo(client.writable),
    ]);
    for (const connection of [client, upstream]) {
      this.#connections.delete(connection);
      closeQuietly(connection);
    }
  }

  /** Passes chunks on, except while held. */
  #gate(): TransformStream<Uint8Array, Uint8Array> {
    return new TransformStream({
      transform: async (chunk, controller) => {
        while (this.#held) await this.#held.promise;
        controller.enqueue(chunk);
      },
    });
  }
}

function closeQuietly(connection: Deno.Conn): void {
  try {
    connection.close();
  } catch {
    // Already closed.
  }
}
