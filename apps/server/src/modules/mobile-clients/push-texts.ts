import { formatIdentifierValue, IDENTIFIER_TYPES, type IdentifierType, type NotificationType } from '@atrium/contract';

export type PushLocale = 'en' | 'ru';

interface Text {
  title: string;
  /** %{name} placeholders filled from the notification's data. */
  body: string;
}

/** What a push says for each notification type, in the user's language (the console's bell says the same). */
const TEXTS: Record<PushLocale, Record<NotificationType, Text>> = {
  en: {
    announce_received: { title: 'New announce', body: 'New announce from %{author}: %{name}' },
    conversation_received: { title: 'New conversation', body: 'New conversation from %{author}: %{name}' },
    announce_status_changed: { title: 'Announce', body: 'Announce %{name} is now %{status}' },
    conversation_message_received: { title: 'New message', body: 'New message from %{from} in %{name}' },
    sip_reboot_started: { title: 'SIP server', body: 'SIP server reboot started' },
    sip_reboot_completed: { title: 'SIP server', body: 'SIP server reboot completed' },
    device_broker_settings_sent: { title: 'Device', body: 'Broker settings sent to %{device}' },
    user_used_identifier: { title: 'Access', body: '%{user} used the %{identifier_type} %{identifier_number} at %{device}' },
    user_used_revoked_identifier: {
      title: 'Access',
      body: '%{user} used the revoked %{identifier_type} %{identifier_number} at %{device}',
    },
    device_alarm_enabled: { title: 'Alarm', body: 'Alarm on %{device} (%{group}): %{sensors}' },
    device_alarm_disabled: { title: 'Alarm cleared', body: 'Alarm cleared on %{device} (%{group})' },
    device_alarm_processed: { title: 'Alarm processed', body: 'Alarm on %{device} processed by %{user}' },
    device_offline: { title: 'Device offline', body: '%{device} went offline' },
    device_task_failed: { title: 'Device task failed', body: 'Task %{task_type} on %{device} failed: %{error}' },
    system: { title: 'Atrium', body: '%{name}' },
  },
  ru: {
    announce_received: { title: 'Новое объявление', body: 'Новое объявление от %{author}: %{name}' },
    conversation_received: { title: 'Новое обращение', body: 'Новое обращение от %{author}: %{name}' },
    announce_status_changed: { title: 'Объявление', body: 'Объявление %{name}: статус %{status}' },
    conversation_message_received: { title: 'Новое сообщение', body: 'Новое сообщение от %{from} в %{name}' },
    sip_reboot_started: { title: 'SIP-сервер', body: 'Начата перезагрузка SIP-сервера' },
    sip_reboot_completed: { title: 'SIP-сервер', body: 'Перезагрузка SIP-сервера завершена' },
    device_broker_settings_sent: { title: 'Устройство', body: 'Настройки брокера отправлены на %{device}' },
    user_used_identifier: {
      title: 'Доступ',
      body: '%{user} использовал идентификатор (%{identifier_type} %{identifier_number}) на %{device}',
    },
    user_used_revoked_identifier: {
      title: 'Доступ',
      body: '%{user} использовал отозванный идентификатор (%{identifier_type} %{identifier_number}) на %{device}',
    },
    device_alarm_enabled: { title: 'Тревога', body: 'Тревога на %{device} (%{group}): %{sensors}' },
    device_alarm_disabled: { title: 'Тревога снята', body: 'Тревога снята на %{device} (%{group})' },
    device_alarm_processed: { title: 'Тревога обработана', body: 'Тревога на %{device} обработана: %{user}' },
    device_offline: { title: 'Устройство не в сети', body: '%{device}: устройство не в сети' },
    device_task_failed: { title: 'Ошибка задачи', body: 'Задача %{task_type} на %{device} завершилась ошибкой: %{error}' },
    system: { title: 'Atrium', body: '%{name}' },
  },
};

/** Texts of 'system' notifications by their data.event, as the console's bell shows them. */
const SYSTEM_EVENTS: Record<PushLocale, Record<string, string>> = {
  en: { password_changed: 'Your password was changed', license_expiring: 'A licence ends soon: see Licences' },
  ru: { password_changed: 'Ваш пароль изменён', license_expiring: 'Срок лицензии скоро закончится: см. «Лицензии»' },
};

/** An identifier's type inside a sentence, as the console's bell names it. */
const IDENTIFIER_WORDS: Record<PushLocale, Record<IdentifierType, string>> = {
  en: { card: 'card', ukey: 'UKEY', ukey2: 'UKEY2', access_code: 'access code', qr: 'QR code', license_plate: 'licence plate' },
  ru: {
    card: 'карта',
    ukey: 'ключ UKEY',
    ukey2: 'ключ UKEY2',
    access_code: 'код доступа',
    qr: 'QR-код',
    license_plate: 'номерной знак',
  },
};

/** How the reader of a push reads card numbers (their profile's `identifier_format`, decimal by default). */
export type PushIdentifierFormat = 'hex' | 'dec';

/** What a test push from the push settings says. */
export const testPushText = (locale: PushLocale): { title: string; body: string } =>
  locale === 'ru'
    ? { title: 'Atrium', body: 'Тестовое push-уведомление: push-сервер работает' }
    : { title: 'Atrium', body: 'Test push: the push server works' };

export const pushLocale = (locale: string | null | undefined): PushLocale => (locale === 'ru' ? 'ru' : 'en');

/**
 * The title and text of a notification's push in `locale`; placeholders without a value are left
 * empty. An identifier's number (carried as stored, with its type) reads as its reader reads card
 * numbers in the console (`format`).
 */
export function pushText(
  type: string,
  data: Record<string, unknown>,
  locale: PushLocale,
  format: PushIdentifierFormat = 'dec',
): { title: string; body: string } {
  const t = TEXTS[locale][type as NotificationType] ?? { title: 'Atrium', body: '' };
  const event = typeof data.event === 'string' ? SYSTEM_EVENTS[locale][data.event] : undefined;
  if (type === 'system' && event) return { title: t.title, body: event };
  const kind = (IDENTIFIER_TYPES as readonly unknown[]).includes(data.identifier_type) ? (data.identifier_type as IdentifierType) : null;
  const words: Record<string, unknown> = kind
    ? {
        ...data,
        identifier_type: IDENTIFIER_WORDS[locale][kind],
        ...(typeof data.identifier_number === 'string'
          ? { identifier_number: formatIdentifierValue(kind, data.identifier_number, format) }
          : {}),
      }
    : data;
  const body = t.body.replace(/%\{(\w+)\}/g, (_, k: string) => {
    const v = words[k];
    return v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  });
  return { title: t.title, body };
}
