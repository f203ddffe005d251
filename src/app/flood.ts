/**
 * Comment floods. Every command or review that could start work costs GitHub calls once it is held (a
 * permission check, the configuration, often a reply), all on the installation's rate limit. This gate
 * counts them per person and per repository over the last hour, in this process, before anything is
 * held or called: past either limit the delivery is answered and dropped, with no GitHub call and no
 * reply. Only deliveries let through are counted, so a flooder past their own limit costs nothing more.
 */

const HOUR_MS = 3_600_000;
/** Most people and repositories tracked at once; past it the quietest are forgotten first. */
const MAX_KEYS = 50_000;

export interface FloodLimits {
  perUser: number;
  perRepo: number;
  windowMs?: number;
}

export class CommandFlood {
  private readonly hits = new Map<string, number[]>();
  private readonly windowMs: number;
  private readonly limits: FloodLimits;
  private readonly now: () => number;

  constructor(limits: FloodLimits, now: () => number = Date.now) {
    this.limits = limits;
    this.now = now;
    this.windowMs = limits.windowMs ?? HOUR_MS;
  }

  /** Counts one command from `login` on a repository; why it is dropped, or null when it may go on. */
  take(owner: string, repo: string, login: string): string | null {
    const t = this.now();
    const repoKey = `${owner}/${repo}`.toLowerCase();
    const userKey = `${repoKey}:${login.toLowerCase()}`;
    const user = this.recent(userKey, t);
    if (user.length >= this.limits.perUser) {
      return `${login} sent more than ${this.limits.perUser} commands to ${repoKey} within an hour`;
    }
    const all = this.recent(repoKey, t);
    if (all.length >= this.limits.perRepo) {
      return `${repoKey} received more than ${this.limits.perRepo} commands within an hour`;
    }
    user.push(t);
    all.push(t);
    return null;
  }

  /** The times of `key`'s commands still inside the window (older ones dropped). */
  private recent(key: string, t: number): number[] {
    let times = this.hits.get(key);
    if (!times) {
      if (this.hits.size >= MAX_KEYS) this.prune(t);
      times = [];
      this.hits.set(key, times);
    }
    while (times.length > 0 && times[0]! <= t - this.windowMs) times.shift();
    return times;
  }

  private prune(t: number): void {
    for (const [k, times] of this.hits) {
      while (times.length > 0 && times[0]! <= t - this.windowMs) times.shift();
      if (times.length === 0) this.hits.delete(k);
    }
    // Still full: forget the keys tracked longest (a Map keeps insertion order).
    for (const k of this.hits.keys()) {
      if (this.hits.size < MAX_KEYS * 0.9) break;
      this.hits.delete(k);
    }
  }
}
