/** Defaults and limits of the spec shared by server and console. */
export const LOCALES = ['en', 'ru'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

export const TIME_FORMATS = ['DD-MM-YYYY', 'MM-DD-YYYY', 'YYYY-MM-DD'] as const;
export const IDENTIFIER_FORMATS = ['dec', 'hex'] as const;
export const DEFAULT_IDENTIFIER_FORMAT = 'dec';

export const NOTIFICATION_PAGE_SIZE = 20;
export const MENU_NOTIFICATIONS = 5;
export const IMPORTANT_POPUPS_AT_ONCE = 3;
export const ALERT_TIMEOUT_MS = 3000;
export const LICENSE_ERROR_DISPLAY_MS = 30_000;
export const REALTIME_RECONNECT_MS = 4000;
export const UNREAD_DEBOUNCE_MS = 1000;
export const READ_MARK_DELAY_MS = 1000;
export const DAY_SECONDS = 86_400;
export const UNLIMITED_PERIOD = { from: 0, to: 999_999_999_999 } as const;
export const NAME_MAX_LENGTH = 31;
export const DUMMY_PASSWORD = '********';
/** Access tokens live this long; the console refreshes once on 401. */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
/** Failed logins allowed per window, per IP and per login, before 429. */
export const LOGIN_MAX_FAILURES = 10;
export const LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60;
/**
 * Failed sign-ins counted per login and address together stop at LOGIN_MAX_FAILURES, so someone
 * guessing from one address cannot lock the owner out from another. These wider limits slow
 * guessing spread over many logins from one address, or over many addresses at one login.
 */
export const LOGIN_ADDRESS_MAX_FAILURES = 50;
export const LOGIN_ACCOUNT_MAX_FAILURES = 100;

/**
 * The domain types every new project starts with; the group hierarchy rules speak of them. They are
 * stored in English and shown in the reader's language while their name is still this one (the
 * console's catalogue keys them by `type`); a name the operator changed is shown as written.
 */
export const DEFAULT_DOMAIN_TYPES = [
  { type: 1, name: 'Complex' },
  { type: 2, name: 'Building' },
  { type: 3, name: 'Entrance' },
  { type: 4, name: 'Floor' },
  { type: 5, name: 'Service area' },
  { type: 6, name: 'Apartment' },
] as const;

/** The built-in role every new project starts with, shown in the reader's language while so named. */
export const BUILTIN_ROLE_NAME = 'Administrator';
