import { Box, Typography } from '@mui/material';
import { useTranslate } from 'ra-core';

// Its own module so that the sign-in page's two-factor step does not load the profile's security section.
/** The new secret to enrol: its QR code to scan, and the key itself in groups of four to type. */
export function EnrolmentKey({ enrolment }: { enrolment: { qr: string; secret: string } }) {
  const translate = useTranslate();
  return (
    <>
      <Typography variant="body2">{translate('two_factor.scan_hint')}</Typography>
      <Box component="img" src={enrolment.qr} alt={translate('two_factor.qr_alt')} sx={{ width: 200, height: 200 }} />
      <Typography variant="body2" color="text.secondary">
        {translate('two_factor.manual_key')}
      </Typography>
      <Typography data-testid="two-factor-secret" sx={{ fontFamily: 'monospace', wordBreak: 'break-all', textAlign: 'center' }}>
        {enrolment.secret.replace(/(.{4})/g, '$1 ').trim()}
      </Typography>
    </>
  );
}
