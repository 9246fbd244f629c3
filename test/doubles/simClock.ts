/**
 * The double's clocks. ROS time is the wall clock unless the simulation sets
 * `use_sim_time`, when it is the simulator's clock published on /clock: it
 * starts at 0 and, for a Gazebo that cannot keep up, runs slower than the
 * wall clock (real-time factor < 1).
 */
export class SimClock {
  readonly #rate: number | undefined;
  #simMs = 0;
  #lastWallMs = Date.now();

  /** `rate`: sim seconds per wall second; undefined = no sim clock (ROS time is wall time). */
  constructor(rate: number | undefined) {
    if (rate !== undefined && !(rate > 0)) throw new RangeError(`sim clock rate must be > 0, got ${rate}`);
    this.#rate = rate;
  }

  get simulated(): boolean {
    return this.#rate !== undefined;
  }

  /** Advances the sim clock to the wall clock's now; returns the ROS-time step in seconds. */
  advance(): number {
    const wall = Date.now();
    const dtWall = Math.max(0, wall - this.#lastWallMs);
    this.#lastWallMs = wall;
    if (this.#rate === undefined) return dtWall / 1000;
    this.#simMs += dtWall * this.#rate;
    return (dtWall * this.#rate) / 1000;
  }

  /** ROS time in ms: sim time when simulated, else the wall clock. */
  now(): number {
    return this.#rate === undefined ? Date.now() : this.#simMs;
  }
}
