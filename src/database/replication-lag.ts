/** A MariaDB GTID position: for each replication domain, the sequence number of the last transaction. */
export type GtidPosition = ReadonlyMap<number, number>;

/** `0-1-1234,1-2-55` → {0: 1234, 1: 55}; an empty text is the position of a server that has committed nothing. */
export function parseGtidPosition(text: string): GtidPosition {
  const position = new Map<number, number>();
  for (const gtid of text.split(',')) {
    const parts = gtid.trim().split('-');
    if (parts.length !== 3) continue;
    const [domain, , sequence] = parts.map(Number);
    position.set(domain, Math.max(position.get(domain) ?? 0, sequence));
  }
  return position;
}

/** True when `applied` holds every transaction of `target`, in every domain. */
export function hasReached(applied: GtidPosition, target: GtidPosition): boolean {
  for (const [domain, sequence] of target) {
    if ((applied.get(domain) ?? 0) < sequence) return false;
  }
  return true;
}

/** How far along a position is, to rank replicas when the primary cannot say which is freshest. */
export function progressOf(position: GtidPosition): number {
  let total = 0;
  for (const sequence of position.values()) total += sequence;
  return total;
}

interface Sample {
  position: GtidPosition;
  /** When the primary was first and last seen at this position, in ms. */
  firstSeen: number;
  lastSeen: number;
}

/** The primary's recent positions: a replica is as stale as the time since the primary was where it is. */
export class PrimaryTimeline {
  private readonly samples: Sample[] = [];

  constructor(private readonly keepMs: number) {}

  record(position: GtidPosition, at: number): void {
    const last = this.samples.at(-1);
    if (last && hasReached(last.position, position)) {
      last.lastSeen = at;
    } else {
      this.samples.push({ position, firstSeen: at, lastSeen: at });
    }
    while (this.samples.length > 1 && at - this.samples[0].lastSeen > this.keepMs) this.samples.shift();
  }

  /** Seconds the replica at `applied` is behind, as of `now`; undefined before the primary was ever seen. */
  lagSeconds(applied: GtidPosition, now: number): number | undefined {
    if (this.samples.length === 0) return undefined;
    for (let index = this.samples.length - 1; index >= 0; index -= 1) {
      if (!hasReached(applied, this.samples[index].position)) continue;
      // Reached the newest position: nothing the primary has is missing.
      if (index === this.samples.length - 1) return 0;
      return Math.max(0, (now - this.samples[index].lastSeen) / 1000);
    }
    // Behind everything remembered: at least as old as the oldest sample.
    return Math.max(0, (now - this.samples[0].firstSeen) / 1000);
  }
}
