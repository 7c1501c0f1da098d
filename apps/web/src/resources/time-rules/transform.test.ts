import { CreateTimeRuleBodySchema, UpdateTimeRuleBodySchema } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { patchTransform } from '../../app/kit/patch';
import {
  newTimeRuleRecord,
  timeRuleBody,
  toFormValues,
  validateDays,
  validateExceptions,
  validateTime,
  validateValidTo,
  viewerTimeZone,
} from './transform';

const stored = {
  id: 7,
  name: 'Office hours',
  description: null,
  domain_id: 3,
  time_zone: 'Europe/Moscow',
  valid_from: null,
  valid_to: null,
  is_all_day: false,
  repeat_mode: 'weekly',
  entries: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: 32_400, to: 64_800 }],
  exceptions: [{ date: '2026-01-01', open: false }],
  access_rules: [2],
  created_by: 1,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  can_edit: true,
  can_delete: true,
};

describe('schedule form → API body', () => {
  it('a new schedule is valid for the API as it starts, times in seconds', () => {
    const body = timeRuleBody({ ...newTimeRuleRecord('Europe/Berlin'), name: ' Office ', domain_id: 3 }, 'create');
    expect(body).toEqual({
      name: 'Office',
      domain_id: 3,
      time_zone: 'Europe/Berlin',
      is_all_day: false,
      repeat_mode: 'weekly',
      entries: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: 32_400, to: 64_800 }],
      exceptions: [],
      access_rules: [],
    });
    expect(CreateTimeRuleBodySchema.safeParse(body).success).toBe(true);
  });

  it('takes HH:MM times, orders days Monday first, sorts exceptions and drops read-only fields', () => {
    const body = timeRuleBody(
      {
        ...stored,
        description: '  ',
        valid_from: '2026-03-01',
        valid_to: '',
        entries: [{ days: ['sun', 'sat'], from: '22:00', to: '06:30' }],
        exceptions: [{ date: '2026-05-09', open: true }, { date: '2026-05-01' }, { date: null, open: true }],
      },
      'edit',
    ) as Record<string, unknown>;
    expect(body.entries).toEqual([{ days: ['sat', 'sun'], from: 79_200, to: 23_400 }]);
    expect(body.exceptions).toEqual([
      { date: '2026-05-01', open: false },
      { date: '2026-05-09', open: true },
    ]);
    expect(body.description).toBeNull();
    expect(body.valid_from).toBe('2026-03-01');
    expect(body.valid_to).toBeNull();
    for (const f of ['id', 'can_edit', 'can_delete', 'created_at', 'updated_at', 'created_by']) expect(body).not.toHaveProperty(f);
    expect(UpdateTimeRuleBodySchema.safeParse(body).success).toBe(true);
  });

  it('on edit sends only what changed (the form holds HH:MM, the record seconds)', () => {
    const transform = patchTransform((v) => timeRuleBody(v, 'edit'));
    const form = toFormValues(stored);
    expect(form.entries).toEqual([{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '18:00' }]);
    expect(transform(form, { previousData: stored })).toEqual({});
    expect(transform({ ...form, entries: [{ ...form.entries[0], to: '17:00' }] }, { previousData: stored })).toEqual({
      entries: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: 32_400, to: 61_200 }],
    });
    const changed = transform(
      { ...stored, entries: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: 32_400, to: 61_200 }] },
      { previousData: stored },
    );
    expect(changed).toEqual({ entries: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: 32_400, to: 61_200 }] });
    expect(transform({ ...stored, is_all_day: true }, { previousData: stored })).toEqual({ is_all_day: true });
  });

  it("starts in the viewer's zone only when the zone picker offers it", () => {
    expect(viewerTimeZone('Europe/Berlin', ['Asia/Tokyo', 'Europe/Berlin'])).toBe('Europe/Berlin');
    expect(viewerTimeZone(null, [])).toBe('');
    expect(viewerTimeZone('UTC', ['Europe/Berlin'])).not.toBe('UTC');
  });

  it('checks days, the validity range and repeated exception dates', () => {
    expect(validateDays([])).toBe('schedules.days_required');
    expect(validateTime('9:00')).toBeUndefined();
    expect(validateTime('')).toBeUndefined();
    expect(validateTime('25:00')).toBe('schedules.time_invalid');
    expect(validateDays(['mon'])).toBeUndefined();
    expect(validateValidTo('2026-01-01', { valid_from: '2026-02-01' })).toBe('schedules.valid_to_before_from');
    expect(validateValidTo('2026-02-01', { valid_from: '2026-02-01' })).toBeUndefined();
    expect(validateValidTo(null, { valid_from: '2026-02-01' })).toBeUndefined();
    expect(validateExceptions([{ date: '2026-01-01' }, { date: '2026-01-01', open: true }])).toBe('schedules.exception_dates_unique');
    expect(validateExceptions([{ date: '2026-01-01' }, { date: '2026-01-02' }])).toBeUndefined();
  });
});
