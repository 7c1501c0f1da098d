/** Pure geometry of the report charts (SVG), kept apart from React so it can be tested. */

export type Scale = (v: number) => number;

/** A linear scale from [d0, d1] to [r0, r1]; a zero-width domain maps to the range's middle. */
export function linear(d0: number, d1: number, r0: number, r1: number): Scale {
  if (d1 === d0) return () => (r0 + r1) / 2;
  return (v: number) => r0 + ((v - d0) / (d1 - d0)) * (r1 - r0);
}

/** A "nice" top for a count axis: at least 1, rounded up to 1, 2 or 5 times a power of ten. */
export function niceMax(v: number): number {
  if (v <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

/**
 * The ticks of a count axis from 0 to `top` (a `niceMax`): whole numbers only, each once — a top
 * of 1 has no half-way tick, which would read as a second "1" or a "0.5 licence".
 */
export function countTicks(top: number): number[] {
  const half = top / 2;
  return Number.isInteger(half) && half > 0 ? [0, half, top] : [0, top];
}

/** An SVG polyline's points for values over evenly spaced x positions. */
export function polyline(values: readonly number[], x: Scale, y: Scale): string {
  return values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
}

/**
 * What the period chart shows: the asked range, widened to the ends of the licences in it (an open
 * start or end does not widen it), so a licence that starts today is seen to its end.
 */
export function chartRange(
  periods: readonly { from: number; to: number }[],
  range: { from: number; to: number },
): { from: number; to: number } {
  const OPEN = 999_999_999_999;
  let { from, to } = range;
  for (const p of periods) {
    if (p.from > 0 && p.from < from) from = p.from;
    if (p.to < OPEN && p.to > to) to = p.to;
  }
  return { from, to };
}

/**
 * A bar of the period chart: a licence period clipped to the shown range (Unix seconds), as x and
 * width; open ends (0, 999999999999) reach the edges.
 */
export function periodBar(
  period: { from: number; to: number },
  range: { from: number; to: number },
  x: Scale,
): { x: number; width: number } | null {
  const from = Math.max(period.from, range.from);
  const to = Math.min(period.to, range.to);
  if (to < from) return null;
  const x0 = x(from);
  return { x: x0, width: Math.max(2, x(to) - x0) };
}
