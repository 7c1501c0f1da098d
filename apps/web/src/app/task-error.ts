import type { useTranslate } from 'react-admin';

/**
 * Why a device's task ended in error, in the reader's language when Atrium ended it (a newer task
 * replaced it, the device never answered: `devices.tasks.errors`); a device's own error text is
 * shown as the device sent it.
 */
export function taskErrorText(translate: ReturnType<typeof useTranslate>, error: string | null | undefined): string | undefined {
  if (!error) return undefined;
  return translate(`devices.tasks.errors.${error}`, { _: error });
}
