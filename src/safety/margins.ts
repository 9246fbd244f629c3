/**
 * The clearance every envelope test keeps beyond its bounds (m): the
 * envelope is shrunk by this much, a margin below the arms' repeatability.
 * certifyPath covers the path between its evaluations exactly (not by
 * sampling), so the margin's job is to keep a path from creeping along a
 * wall in ever smaller steps: each evaluation advances a test by at least
 * MARGIN_M of its fastest motion.
 */
export const MARGIN_M = 0.001;

/**
 * With motions in flight, boxes of their joint progress are certified by the
 * sweep bound; a box whose bound is down to this (m) and still cannot be
 * certified is a refusal. 5 mm: the half-spacing of a 10 mm grid.
 */
export const IN_FLIGHT_RESOLUTION_M = 0.005;
