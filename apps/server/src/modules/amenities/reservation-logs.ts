import type { ReservationStatus } from '@atrium/contract';

type Locale = 'en' | 'ru';
type Slot = { from: number; to: number };

const STATUS: Record<Locale, Record<ReservationStatus, string>> = {
  en: { inactive: 'inactive', active: 'in use', reserved: 'reserved', canceled: 'cancelled', expired: 'expired' },
  ru: { inactive: 'неактивно', active: 'используется', reserved: 'забронировано', canceled: 'отменено', expired: 'истекло' },
};

const hhmm = (s: number) => `${String(Math.floor(s / 3600)).padStart(2, '0')}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}`;
const span = (slots: unknown) => {
  const list = Array.isArray(slots) ? (slots as Slot[]) : [];
  return list.length ? `${hhmm(list[0]!.from)}–${hhmm(list[list.length - 1]!.to)}` : '';
};
const status = (locale: Locale, s: unknown) => STATUS[locale][s as ReservationStatus] ?? String(s);

/** A reservation log entry as one sentence in the reader's language (the `translated_info` of spec comms §3). */
export function translateLog(event: string, info: Record<string, unknown>, locale: Locale): string {
  const ru = locale === 'ru';
  switch (event) {
    case 'created':
      return ru
        ? `Забронировано на ${info.date}, ${span(info.time_slots)}, человек: ${info.number_of_persons}`
        : `Reserved for ${info.date}, ${span(info.time_slots)}, persons: ${info.number_of_persons}`;
    case 'updated':
      return ru
        ? `Изменено: ${info.date}, ${span(info.time_slots)}, человек: ${info.number_of_persons}`
        : `Changed to ${info.date}, ${span(info.time_slots)}, persons: ${info.number_of_persons}`;
    case 'canceled':
      return ru ? 'Бронирование отменено, QR-код отозван' : 'Reservation cancelled, its QR code revoked';
    case 'status_changed':
      return ru
        ? `Статус изменён: ${status(locale, info.from)} → ${status(locale, info.to)}`
        : `Status changed: ${status(locale, info.from)} → ${status(locale, info.to)}`;
    default:
      return event;
  }
}
