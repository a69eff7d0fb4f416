import { createServer, Socket, type Server } from 'node:net';

/**
 * A TCP relay between the service and its database, so a test can make the
 * database unreachable (and reachable again) without touching a server that
 * others may share.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  /** Statements whose text matches are held: neither they nor anything after them on their connection is relayed. */
  private holding?: RegExp;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** Starts relaying, on the same port as before if it ran already. */
  async open(): Promise<number> {
    const server = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      let held = false;
      client.on('data', (chunk: Buffer) => {
        held ||= this.holding?.test(chunk.toString('latin1')) ?? false;
        if (!held) upstream.write(chunk);
      });
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    this.server = server;
    return this.port;
  }

  /**
   * From now on, a statement whose text matches `pattern` never reaches the
   * database, nor does anything sent after it on that connection: a server
   * that stops answering one connection mid-way, at a point the test chooses.
   */
  holdStatementsMatching(pattern: RegExp | undefined): void {
    this.holding = pattern;
  }

  /** Drops every connection and refuses new ones, as a database that went away. */
  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
