import type { DatabaseServer } from './database-server';
import { gtidDialectOf, type GtidDialect, type ReplicationPosition } from './gtid';

/** The primary answered a position that its own dialect cannot read: not a server this service knows how to follow. */
export class UnreadablePositionError extends Error {
  constructor(flavour: string) {
    super(`The primary's replication position could not be read as a ${flavour} GTID position`);
  }
}

/**
 * docs/API.md §19: the primary's position, for reads that must reflect every write it had committed when they
 * arrived. One read runs at a time: a request that comes while one runs waits for the next, which starts as soon as
 * the running one ends and serves every request that joined it, so each is answered by a read that began after it
 * came, and a burst costs the primary one statement per round trip rather than one per request.
 */
export class PrimaryPositions {
  private running?: Promise<ReplicationPosition>;
  private next?: Promise<ReplicationPosition>;
  private learned?: GtidDialect;

  constructor(private readonly primary: DatabaseServer) {}

  /** What kind of positions the servers write; known after the first read. */
  get dialect(): GtidDialect | undefined {
    return this.learned;
  }

  /** A position the primary had reached at some moment after this call. */
  read(): Promise<ReplicationPosition> {
    const running = this.running;
    if (!running) return this.start();
    this.next ??= running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        this.next = undefined;
        return this.start();
      });
    return this.next;
  }

  private start(): Promise<ReplicationPosition> {
    const reading = this.readOnce().finally(() => {
      if (this.running === reading) this.running = undefined;
    });
    this.running = reading;
    return reading;
  }

  private async readOnce(): Promise<ReplicationPosition> {
    const dialect = (this.learned ??= gtidDialectOf(await this.primary.readVariable('SELECT @@version AS version')));
    const position = dialect.parse(await this.primary.readVariable(dialect.positionStatement));
    if (!position) throw new UnreadablePositionError(dialect.flavour);
    return position;
  }
}
