import type { AccessRule } from '@atrium/contract';
import BlockIcon from '@mui/icons-material/Block';
import { Chip, Stack } from '@mui/material';
import { useRecordContext, useTranslate } from 'react-admin';

/** A prohibition denies, whatever else allows: a red chip no one can miss. */
export function ProhibitionChip(_: { source?: string; label?: string; sortable?: boolean }) {
  const translate = useTranslate();
  const record = useRecordContext<AccessRule>();
  if (!record?.prohibition) return null;
  return (
    <Chip size="small" color="error" icon={<BlockIcon />} label={translate('access_rules.prohibition')} data-testid="prohibition-chip" />
  );
}

/** The shareable and guest flags of a rule, as small chips. */
export function FlagsField(_: { source?: string; label?: string; sortable?: boolean }) {
  const translate = useTranslate();
  const record = useRecordContext<AccessRule>();
  if (!record) return null;
  return (
    <Stack direction="row" sx={{ gap: 0.5, flexWrap: 'wrap' }}>
      {record.is_shareable ? <Chip size="small" variant="outlined" label={translate('access_rules.shareable')} /> : null}
      {record.available_for_guest ? <Chip size="small" variant="outlined" color="info" label={translate('access_rules.guest')} /> : null}
    </Stack>
  );
}
