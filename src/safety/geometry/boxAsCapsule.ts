/** The capsule around a placed box: along its longest axis, radius the half diagonal across it. */
export function boxAsCapsule(W: Float64Array, o: number): [number, number, number, number, number, number, number] {
  const h0 = W[o + 12] ?? 0,
    h1 = W[o + 13] ?? 0,
    h2 = W[o + 14] ?? 0;
  const long = h0 >= h1 && h0 >= h2 ? 0 : h1 >= h2 ? 1 : 2;
  const u = o + 3 + 3 * long;
  const hl = long === 0 ? h0 : long === 1 ? h1 : h2;
  const r = long === 0 ? Math.hypot(h1, h2) : long === 1 ? Math.hypot(h0, h2) : Math.hypot(h0, h1);
  const cx = W[o] ?? 0,
    cy = W[o + 1] ?? 0,
    cz = W[o + 2] ?? 0;
  const ux = (W[u] ?? 0) * hl,
    uy = (W[u + 1] ?? 0) * hl,
    uz = (W[u + 2] ?? 0) * hl;
  return [cx - ux, cy - uy, cz - uz, cx + ux, cy + uy, cz + uz, r];
}
