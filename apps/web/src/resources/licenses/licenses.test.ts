import { emptyLicenseInfo, fullLicenseInfo, LICENSE_FEATURES, LICENSE_STATUSES } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { countText, enabledFeatures, periodDay, usedPercent } from './format';
import { en, ru } from './messages';

/** Every leaf's dotted path with its text. */
const leaves = (o: object, prefix = ''): [string, unknown][] =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? leaves(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]]));

describe('licences page', () => {
  it('has every text in both languages, a name for every feature and status', () => {
    const [e, r] = [leaves(en), leaves(ru)];
    expect(r.map(([k]) => k)).toEqual(e.map(([k]) => k));
    for (const [k, v] of [...e, ...r]) expect(v, k).toMatch(/\S/);
    for (const f of Object.keys(LICENSE_FEATURES))
      expect(en.licenses.feature_names[f as keyof typeof LICENSE_FEATURES], f).toBeTypeOf('string');
    for (const s of LICENSE_STATUSES) expect(ru.licenses.statuses[s], s).toBeTypeOf('string');
  });

  it('shows periods, counts and usage as a person reads them', () => {
    expect(periodDay(0, 'en')).toBeNull();
    expect(periodDay(999_999_999_999, 'en')).toBeNull();
    expect(periodDay(Date.UTC(2027, 0, 31) / 1000, 'en-GB')).toBe('31/01/2027');
    expect(countText(null)).toBe('∞');
    expect(countText(0)).toBe('0');
    expect(usedPercent(5, null)).toBe(0);
    expect(usedPercent(1, 0)).toBe(100);
    expect(usedPercent(3, 4)).toBe(75);
    expect(usedPercent(9, 4)).toBe(100);
  });

  it('lists the features a licence turns on', () => {
    expect(enabledFeatures(emptyLicenseInfo())).toEqual([]);
    expect(enabledFeatures(fullLicenseInfo())).toEqual(Object.keys(LICENSE_FEATURES));
    const info = emptyLicenseInfo();
    info.elevator.is_enabled = true;
    info.sip.is_web_dialer_enabled = true;
    expect(enabledFeatures(info)).toEqual(['web_dialer', 'elevator']);
  });
});
