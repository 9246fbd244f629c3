/** RGB of a scene colour: a name from the config's list, or #rrggbb. */
const NAMED: Readonly<Record<string, readonly [number, number, number]>> = {
  red: [220, 30, 30],
  green: [30, 170, 60],
  blue: [30, 70, 220],
  yellow: [240, 210, 30],
  orange: [245, 130, 20],
  purple: [140, 50, 170],
  white: [245, 245, 245],
  black: [20, 20, 20],
  grey: [128, 128, 128],
};

export function namedColour(colour: string): readonly [number, number, number] {
  const named = NAMED[colour];
  if (named) return named;
  const m = /^#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})$/.exec(colour);
  if (!m) throw new RangeError(`not a colour: ${colour}`);
  return [Number.parseInt(m[1] ?? "0", 16), Number.parseInt(m[2] ?? "0", 16), Number.parseInt(m[3] ?? "0", 16)];
}
