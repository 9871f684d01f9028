// The houses on a clock: simulated time = start + (clock() - start) x speed. Each house is
// advanced lazily, when it is read or written, so an idle simulator costs nothing. The clock is
// injectable: tests freeze or step it.
import { advance, createHouse, readings, seededRandom, withSetpoint, type HouseState, type Readings, type SetpointKey } from './model.js';

export interface SimulationOptions {
  houses: number;
  age_days: number;
  birds: number;
  speed: number;
  seed: number;
  /** Sensor noise scale (1 realistic, 0 none). */
  noise: number;
  clock?: () => number;
}

export class Simulation {
  private readonly clock: () => number;
  private readonly startMs: number;
  private readonly states: HouseState[];
  private readonly randoms: (() => number)[];

  constructor(private readonly o: SimulationOptions) {
    this.clock = o.clock ?? Date.now;
    this.startMs = this.clock();
    this.states = [];
    this.randoms = [];
    for (let k = 1; k <= o.houses; k++) {
      // Each house its own noise stream, all from the one seed: a run is reproducible as a whole.
      const random = seededRandom(o.seed * 1000 + k);
      this.randoms.push(random);
      this.states.push(createHouse({ at_ms: this.startMs, age_days: o.age_days, birds: o.birds, noise: o.noise, random }));
    }
  }

  get houses(): number {
    return this.states.length;
  }

  /** Simulated time now (ms since the epoch). */
  now(): number {
    return this.startMs + (this.clock() - this.startMs) * this.o.speed;
  }

  /** House k (1-based) brought up to now, or undefined when there is no such house. */
  state(k: number): HouseState | undefined {
    const s = this.states[k - 1];
    if (!s) return undefined;
    const next = advance(s, this.now(), this.randoms[k - 1]!, this.o.noise);
    this.states[k - 1] = next;
    return next;
  }

  readings(k: number): Readings | undefined {
    const s = this.state(k);
    return s && readings(s);
  }

  setSetpoint(k: number, key: SetpointKey, value: number): void {
    const s = this.state(k);
    if (s) this.states[k - 1] = withSetpoint(s, key, value);
  }
}
