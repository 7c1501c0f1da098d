import { Alert } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { useSessionData } from '../app/SessionContext';

/** The text of a licence warning (spec core §4), or null when there is nothing to warn about. */
export function licenseWarningText(
  warnings: { status: string; days: number | null } | null | undefined,
  translate: (key: string, options?: Record<string, unknown>) => string,
): string | null {
  if (!warnings) return null;
  if (warnings.status === 'no_license') return translate('license.no_license');
  const days = warnings.days ?? 0;
  if (warnings.status === 'will_expire')
    return days > 0 ? translate('license.will_expire', { smart_count: days }) : translate('license.expires_today');
  if (warnings.status === 'already_expired')
    return days > 0 ? translate('license.already_expired', { smart_count: days }) : translate('license.disabled_today');
  return null;
}

/** Licence warnings for users who may manage licences; no time-out, only a close button. */
export function LicenseWarnings() {
  const translate = useTranslate();
  const { settings, can } = useSessionData();
  const [dismissed, setDismissed] = useState(false);
  const text = licenseWarningText(settings?.warnings, translate);
  if (!text || dismissed || !can('can_manage_licenses')) return null;
  return (
    <Alert
      severity={settings?.warnings.status === 'already_expired' ? 'error' : 'warning'}
      onClose={() => setDismissed(true)}
      slotProps={{ closeButton: { 'aria-label': translate('license.dismiss') } }}
      sx={{ mb: 2 }}
      data-testid="license-warning"
    >
      {text}
    </Alert>
  );
}
