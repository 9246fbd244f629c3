/**
 * How a transport turns a motion's `speed` (a fraction of each axis's
 * max_velocity) into each axis's motion over time — what the tool-speed
 * limit needs to know to bound how fast the tool will move, and to slow a
 * motion down by lowering its speed.
 */
export type MotionTiming =
  /**
   * One trajectory per controller (ROS JointTrajectoryController): all its
   * axes follow one trapezoidal time law along the straight joint-space line
   * (synchronizedTrapezoid), the shortest that keeps each axis within speed ×
   * max_velocity and speed × max_acceleration, and no shorter than
   * `minDurationS`. `groups`: the axes of each controller.
   */
  | {
      readonly kind: "synchronized_trapezoid";
      readonly groups: readonly (readonly string[])[];
      readonly minDurationS: number;
    }
  /**
   * Every axis of a motion takes the same time, the slowest axis's
   * rest-to-rest time at speed × max_velocity, each on its own trapezoid at
   * max_acceleration (armbridge's serial firmware and firmware-sim).
   */
  | { readonly kind: "shared_duration" }
  /**
   * Each axis on its own profile at speed × max_velocity and max_acceleration,
   * no common duration (servo buses). `minVelocity`: the slowest each axis
   * can be told to move (rad/s), its smallest velocity step; a slower speed
   * still moves it that fast.
   */
  | { readonly kind: "independent"; readonly minVelocity: Readonly<Record<string, number>> };
