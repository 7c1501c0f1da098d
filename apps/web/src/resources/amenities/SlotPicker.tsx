import type { AmenityState } from '@atrium/contract';
import { Alert, Box, Chip, FormControl, FormHelperText, FormLabel, Skeleton } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useDataProvider, useInput, useTranslate } from 'react-admin';
import { useWatch } from 'react-hook-form';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { browserOffset, hhmm, type Slot, sameSlot, slotAvailable, toggleSlot, validatePickedSlots } from './transform';

const offsetText = (m: number) => `${m < 0 ? '−' : '+'}${hhmm(Math.abs(m) * 60)}`;

/**
 * The slots of the chosen amenity on the chosen date, from GET /amenities/{id}/state/{date}: each
 * with its free places; past and full ones cannot be picked. `except` is the reservation being
 * edited, whose own persons do not take places.
 */
export function SlotPicker({ source, except, readOnly }: { source: string; except?: number; readOnly?: boolean }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const amenityId = useWatch({ name: 'amenity_id' }) as number | undefined;
  const date = String(useWatch({ name: 'date' }) ?? '').slice(0, 10);
  const persons = Number(useWatch({ name: 'number_of_persons' }) ?? 1) || 1;
  const offset = browserOffset();
  const ready = !!amenityId && /^\d{4}-\d{2}-\d{2}$/.test(date);
  const { data: state, isPending } = useQuery({
    queryKey: ['amenity-state', amenityId, date, offset, except],
    enabled: ready,
    queryFn: async () =>
      (
        await dp.request<{ data: AmenityState }>(
          `/amenities/${amenityId}/state/${date}?user_offset=${offset}${except ? `&except=${except}` : ''}`,
        )
      ).data,
  });
  const { field, fieldState } = useInput({
    source,
    defaultValue: [],
    validate: (v: unknown) => validatePickedSlots(v as Slot[], state ?? null, persons),
  });
  const picked: Slot[] = Array.isArray(field.value) ? field.value : [];
  // Another amenity or day: what was picked belongs to the old one.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset only when the amenity or the day changes
  useEffect(() => {
    if (!readOnly && state && picked.some((p) => !state.slots.some((s) => sameSlot(s, p)))) field.onChange([]);
  }, [state?.amenity_id, state?.date]);
  const error = fieldState.error?.message;
  return (
    <FormControl component="fieldset" error={!!error} sx={{ width: '100%', mb: 2 }}>
      <FormLabel component="legend" sx={{ mb: 1 }}>
        {translate('resources.amenities/reservations.fields.time_slots')}
      </FormLabel>
      {!ready ? (
        <Alert severity="info" variant="outlined">
          {translate('reservations.pick_amenity_date')}
        </Alert>
      ) : isPending ? (
        <Skeleton variant="rectangular" height={72} />
      ) : !state?.slots.length ? (
        <Alert severity="warning" variant="outlined">
          {translate('reservations.no_slots')}
        </Alert>
      ) : (
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1 }} role="group" data-testid="slot-picker">
          {state.slots.map((s) => {
            const on = picked.some((p) => sameSlot(p, s));
            const available = slotAvailable(s, persons);
            const note = s.is_past
              ? translate('reservations.past')
              : s.free_places < persons
                ? translate('reservations.full')
                : translate('reservations.free', { count: s.free_places });
            return (
              <Chip
                key={s.from}
                label={`${hhmm(s.from)}–${hhmm(s.to)} · ${note}`}
                color={on ? (available ? 'primary' : 'error') : 'default'}
                variant={on ? 'filled' : 'outlined'}
                disabled={readOnly || (!available && !on)}
                aria-pressed={on}
                onClick={() => {
                  field.onChange(toggleSlot(picked, { from: s.from, to: s.to }));
                  field.onBlur();
                }}
              />
            );
          })}
        </Box>
      )}
      <FormHelperText>{error ? translate(error) : translate('reservations.slots_hint', { offset: offsetText(offset) })}</FormHelperText>
    </FormControl>
  );
}
