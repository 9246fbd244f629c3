/**
 * Shortest time (s) to travel `distance` from rest to rest under a
 * trapezoidal velocity profile with these limits: the device moves on
 * trapezoids (serial v1 §3.2), so this is part of its contract. The one model of motion
 * time: firmware-sim times its motions with it, the ROS transport times its
 * trajectories with it, and the executor refuses plans too slow to settle.
 */
export function restToRestTime(distance: number, maxVelocity: number, maxAcceleration: number): number {
  const d = Math.abs(distance);
  if (d === 0) return 0;
  // Reaching full speed needs v²/a of travel (accelerate + decelerate); below that the profile is a triangle.
  const triangleLimit = (maxVelocity * maxVelocity) / maxAcceleration;
  return d >= triangleLimit ? d / maxVelocity + maxVelocity / maxAcceleration : 2 * Math.sqrt(d / maxAcceleration);
}
