// Failed login attempts per client address, in a sliding window. A cache by nature: a restart
// forgets it, while the per-challenge attempt count lives in SQL with the challenge.
export class Throttle {
  private readonly failures = new Map<string, number[]>();
  constructor(private readonly limit: number, private readonly windowMs: number) {}

  /** Milliseconds until the address may try again, or 0. */
  blockedFor(address: string, now = Date.now()): number {
    const recent = this.recent(address, now);
    return recent.length >= this.limit ? (recent[0] as number) + this.windowMs - now : 0;
  }

  fail(address: string, now = Date.now()): void {
    const recent = this.recent(address, now);
    recent.push(now);
    this.failures.set(address, recent);
    if (this.failures.size > 10_000) this.failures.delete(this.failures.keys().next().value as string);
  }

  private recent(address: string, now: number): number[] {
    return (this.failures.get(address) ?? []).filter((t) => t > now - this.windowMs);
  }
}
