import type { AmenityState } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import {
  amenityBody,
  amenityFormValues,
  createReservationBody,
  hhmm,
  secondsOf,
  spanText,
  toggleSlot,
  updateReservationBody,
  validateAmenityForm,
  validatePickedSlots,
  validateTime,
} from './transform';

const form = (items: { days: string[]; from: string; to: string }[], minutes = 60) =>
  ({
    ...amenityFormValues(),
    name: 'Gym',
    domains: [1],
    access_rules: [2],
    time_slots: { duration_minutes: minutes, items },
  }) as Parameters<typeof validateAmenityForm>[0];

describe('amenity form', () => {
  it('reads and writes times of the day, 24:00 included', () => {
    expect(hhmm(0)).toBe('00:00');
    expect(hhmm(86_400)).toBe('24:00');
    expect(secondsOf('09:30')).toBe(34_200);
    expect(secondsOf('24:00')).toBe(86_400);
    expect(secondsOf('24:01')).toBeNull();
    expect(secondsOf('9:75')).toBeNull();
    expect(validateTime('')).toBe('validation.required');
    expect(validateTime('noon')).toBe('validation.invalid_value');
    expect(validateTime('12:00')).toBeUndefined();
  });

  it('starts with the spec defaults and sends seconds', () => {
    const v = amenityFormValues();
    expect(v.number_of_persons).toEqual({ min: 1, max: 500 });
    expect(v.time_slots.duration_minutes).toBe(60);
    expect(amenityBody(form([{ days: ['mon'], from: '09:00', to: '18:00' }], 30)).time_slots).toEqual({
      duration: 1800,
      items: [{ days: ['mon'], from: 32_400, to: 64_800 }],
    });
    expect(amenityBody({ ...form([]), address: '  ' }).address).toBeNull();
  });

  it('refuses every slot rule of spec §5 on its field', () => {
    expect(validateAmenityForm(form([]))).toMatchObject({ time_slots: { items: 'validation.required' } });
    expect(validateAmenityForm(form([{ days: ['mon'], from: '10:00', to: '09:00' }]))).toMatchObject({
      time_slots: { items: [{ to: 'validation.amenity_slot_order' }] },
    });
    expect(validateAmenityForm(form([{ days: ['mon'], from: '09:00', to: '10:30' }]))).toMatchObject({
      time_slots: { items: [{ to: 'validation.amenity_slot_multiple' }] },
    });
    expect(validateAmenityForm(form([{ days: [], from: '09:00', to: '10:00' }]))).toMatchObject({
      time_slots: { items: [{ days: 'validation.at_least_one_day' }] },
    });
    const crossing = validateAmenityForm(
      form([
        { days: ['mon', 'tue'], from: '09:00', to: '12:00' },
        { days: ['tue'], from: '11:00', to: '13:00' },
      ]),
    );
    expect(crossing).toMatchObject({ time_slots: { items: [undefined, { from: 'validation.amenity_slots_intersect' }] } });
    expect(
      validateAmenityForm(
        form([
          { days: ['mon'], from: '09:00', to: '12:00' },
          { days: ['tue'], from: '09:00', to: '12:00' },
        ]),
      ),
    ).toEqual({});
    expect(
      validateAmenityForm({ ...form([{ days: ['mon'], from: '09:00', to: '10:00' }]), number_of_persons: { min: 5, max: 2 } }),
    ).toMatchObject({
      number_of_persons: { max: 'validation.greater_than' },
    });
  });
});

describe('reservation form', () => {
  const s = (h: number) => ({ from: h * 3600, to: (h + 1) * 3600 });
  it('keeps the picked slots one run of consecutive slots', () => {
    expect(toggleSlot([], s(10))).toEqual([s(10)]);
    expect(toggleSlot([s(10)], s(11))).toEqual([s(10), s(11)]);
    expect(toggleSlot([s(10), s(11)], s(9))).toEqual([s(9), s(10), s(11)]);
    expect(toggleSlot([s(9), s(10), s(11)], s(9))).toEqual([s(10), s(11)]);
    expect(toggleSlot([s(9), s(10), s(11)], s(11))).toEqual([s(9), s(10)]);
    expect(toggleSlot([s(9), s(10), s(11)], s(10))).toEqual([s(10)]);
    expect(toggleSlot([s(9), s(10)], s(14))).toEqual([s(14)]);
    expect(spanText([s(9), s(10)])).toBe('09:00–11:00');
  });

  it('says "Item should be active" of a picked slot that is past or full', () => {
    const state = {
      amenity_id: 1,
      date: '2030-01-01',
      day: 'tue',
      number_of_persons: { min: 1, max: 3 },
      slots: [
        { ...s(9), reserved: 0, free_places: 3, is_past: true },
        { ...s(10), reserved: 2, free_places: 1, is_past: false },
        { ...s(11), reserved: 0, free_places: 3, is_past: false },
      ],
    } as AmenityState;
    expect(validatePickedSlots([], state, 1)).toBe('validation.required');
    expect(validatePickedSlots([s(9)], state, 1)).toBe('validation.item_should_be_active');
    expect(validatePickedSlots([s(10)], state, 2)).toBe('validation.item_should_be_active');
    expect(validatePickedSlots([s(10), s(11)], state, 1)).toBeUndefined();
  });

  it('sends the API body with the clock offset in minutes east of UTC', () => {
    const v = { amenity_id: 4, user_id: null, date: '2030-01-01', number_of_persons: 2, time_slots: [s(11), s(10)] };
    expect(createReservationBody(v, 180)).toEqual({
      amenity_id: 4,
      date: '2030-01-01',
      number_of_persons: 2,
      time_slots: [s(10), s(11)],
      user_offset: 180,
    });
    expect(createReservationBody({ ...v, user_id: 9 }, 0)).toMatchObject({ user_id: 9 });
    expect(updateReservationBody({ ...v, user_id: 9 }, -300)).toEqual({
      date: '2030-01-01',
      number_of_persons: 2,
      time_slots: [s(10), s(11)],
      user_offset: -300,
    });
  });
});
