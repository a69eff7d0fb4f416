import type { Clock } from '../common/time/clock';
import type { DatabaseServer } from './database-server';
import type { DatabaseServers } from './database-servers';
import { CHECK_INTERVAL_MS } from './database-health-monitor';
import { gtidDialectOf, type GtidDialect, type ReplicationPosition } from './gtid';
import { HISTORY_STATEMENTS, parseHistory, type WriteHistory } from './write-history';

/** The primary answered a position that its own dialect cannot read: not a server this service knows how to follow. */
export class UnreadablePositionError extends Error {
  constructor(flavour: string) {
    super(`The primary's replication position could not be read as a ${flavour} GTID position`);
  }
}

/** One read of the primary at a time: a request arriving meanwhile joins the next, which starts after it came, so a
 * burst costs the primary one statement per round trip rather than one per request. */
abstract class CoalescedRead<T> {
  private running?: Promise<T>;
  private next?: Promise<T>;

  protected abstract readOnce(): Promise<T>;

  read(): Promise<T> {
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

  private start(): Promise<T> {
    const reading = this.readOnce().finally(() => {
      if (this.running === reading) this.running = undefined;
    });
    this.running = reading;
    return reading;
  }
}

/** A history read, of which server, and when. */
interface ReadHistory {
  history: WriteHistory;
  of: DatabaseServer;
  at: number;
}

/** The primary's position, for reads that must reflect every write it had committed when they arrived; and its
 * history by origin, against which a writer's position is checked. */
export class PrimaryPositions {
  private learned?: GtidDialect;
  private readonly positions = new PositionReads(this);
  private readonly histories = new HistoryReads(this);
  private lastHistory?: ReadHistory;

  /** `servers.primary` is the server followed as the primary at each read: it changes when a promotion is followed. */
  constructor(
    private readonly servers: Pick<DatabaseServers, 'primary'>,
    private readonly clock: Clock,
  ) {}

  /** What kind of positions the servers write; known after the first read. */
  get dialect(): GtidDialect | undefined {
    return this.learned;
  }

  /** A position the primary had reached at some moment after this call. */
  read(): Promise<ReplicationPosition> {
    return this.positions.read();
  }

  /** What the primary held by origin at some moment after this call. */
  history(): Promise<WriteHistory> {
    return this.histories.read();
  }

  /** The followed primary's history as read within the last health round, if it was: a write it holds stays held. */
  recentHistory(): WriteHistory | undefined {
    const last = this.lastHistory;
    if (!last || last.of !== this.servers.primary || this.clock.now() - last.at > CHECK_INTERVAL_MS) return undefined;
    return last.history;
  }

  private async dialectOf(): Promise<GtidDialect> {
    return (this.learned ??= gtidDialectOf(await this.servers.primary.readVariable('SELECT @@version AS version')));
  }

  /** Read by PositionReads, one at a time. */
  async readPosition(): Promise<ReplicationPosition> {
    const dialect = await this.dialectOf();
    const position = dialect.parse(await this.servers.primary.readVariable(dialect.positionStatement));
    if (!position) throw new UnreadablePositionError(dialect.flavour);
    return position;
  }

  /** Read by HistoryReads, one at a time. */
  async readHistory(): Promise<WriteHistory> {
    const { flavour } = await this.dialectOf();
    const of = this.servers.primary;
    const at = this.clock.now();
    const history = parseHistory(flavour, await of.readVariable(HISTORY_STATEMENTS[flavour]));
    if (!history) throw new UnreadablePositionError(flavour);
    this.lastHistory = { history, of, at };
    return history;
  }
}

class PositionReads extends CoalescedRead<ReplicationPosition> {
  constructor(private readonly positions: PrimaryPositions) {
    super();
  }

  protected readOnce(): Promise<ReplicationPosition> {
    return this.positions.readPosition();
  }
}

class HistoryReads extends CoalescedRead<WriteHistory> {
  constructor(private readonly positions: PrimaryPositions) {
    super();
  }

  protected readOnce(): Promise<WriteHistory> {
    return this.positions.readHistory();
  }
}
