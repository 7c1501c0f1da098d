import { LICENSE_FEATURES, LICENSE_STATUSES } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { chartRange, countTicks, linear, niceMax, periodBar, polyline } from './charts';
import { en, ru } from './messages';

const leaves = (o: object, prefix = ''): [string, unknown][] =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? leaves(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]]));

describe('licence reports page', () => {
  it('has every text in both languages', () => {
    const [e, r] = [leaves(en), leaves(ru)];
    expect(r.map(([k]) => k)).toEqual(e.map(([k]) => k));
    for (const [k, v] of [...e, ...r]) expect(v, k).toMatch(/\S/);
    for (const s of LICENSE_STATUSES) expect(en.license_reports.statuses[s], s).toBeTypeOf('string');
    for (const f of Object.keys(LICENSE_FEATURES))
      expect(ru.license_reports.types[f as keyof typeof LICENSE_FEATURES], f).toBeTypeOf('string');
  });

  it('scales the used chart to a round top', () => {
    expect(niceMax(0)).toBe(1);
    expect(niceMax(7)).toBe(10);
    expect(niceMax(11)).toBe(20);
    expect(niceMax(120)).toBe(200);
    expect(niceMax(500)).toBe(500);
    // The axis reads whole licences, each once ("1, 1, 0" for a top of 1 was a half-way tick rounded).
    expect(countTicks(niceMax(0))).toEqual([0, 1]);
    expect(countTicks(niceMax(2))).toEqual([0, 1, 2]);
    expect(countTicks(niceMax(7))).toEqual([0, 5, 10]);
    for (const top of [1, 2, 5, 10, 20, 50, 100]) for (const t of countTicks(top)) expect(Number.isInteger(t), `${top}: ${t}`).toBe(true);
    const x = linear(0, 2, 0, 100);
    const y = linear(0, 10, 100, 0);
    expect(polyline([0, 5, 10], x, y)).toBe('0.0,100.0 50.0,50.0 100.0,0.0');
    expect(linear(3, 3, 0, 10)(3)).toBe(5);
  });

  it('clips licence periods to the shown range; open ends reach the edges', () => {
    const x = linear(100, 200, 0, 100);
    const range = { from: 100, to: 200 };
    expect(periodBar({ from: 0, to: 999_999_999_999 }, range, x)).toEqual({ x: 0, width: 100 });
    expect(periodBar({ from: 150, to: 160 }, range, x)).toEqual({ x: 50, width: 10 });
    expect(periodBar({ from: 150, to: 150 }, range, x)).toEqual({ x: 50, width: 2 });
    expect(periodBar({ from: 300, to: 400 }, range, x)).toBeNull();
    expect(chartRange([{ from: 0, to: 999_999_999_999 }], range)).toEqual(range);
    expect(
      chartRange(
        [
          { from: 50, to: 150 },
          { from: 120, to: 900 },
        ],
        range,
      ),
    ).toEqual({ from: 50, to: 900 });
  });
});
