import type { Identifier } from '@atrium/contract';
import HelpOutlineIcon from '@mui/icons-material/HelpOutlineOutlined';
import { Button } from '@mui/material';
import { useCallback } from 'react';
import { TopToolbar, useRecordContext, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { useIdentifierFormat } from '../../app/identifier-value';
import { EditPage } from '../../app/kit/RecordPage';
import { IdentifierForm } from './IdentifierForm';
import { QrPreviewButton } from './QrPreview';
import { RevokeButton } from './Revoke';
import { identifierBody } from './transform';

function IdentifierTitle() {
  const translate = useTranslate();
  const record = useRecordContext<Identifier>();
  return <span>{record ? translate('identifiers.edit_title', { name: record.name }) : translate('identifiers.title')}</span>;
}

function IdentifierActions() {
  const translate = useTranslate();
  const record = useRecordContext<Identifier>();
  return (
    <TopToolbar sx={{ alignItems: 'center' }}>
      {record ? (
        <Button size="small" startIcon={<HelpOutlineIcon />} component={Link} to={`/access-control/explain?identifier_id=${record.id}`}>
          {translate('identifiers.why')}
        </Button>
      ) : null}
      <QrPreviewButton />
      <RevokeButton />
    </TopToolbar>
  );
}

export function IdentifierEdit() {
  const format = useIdentifierFormat();
  const transform = useCallback(
    (values: Record<string, unknown>, options?: { previousData?: Record<string, unknown> }) =>
      identifierBody(values, format, (options?.previousData ?? {}) as Partial<Identifier>),
    [format],
  );
  return (
    <EditPage title={<IdentifierTitle />} actions={<IdentifierActions />} transform={transform}>
      <IdentifierForm mode="edit" />
    </EditPage>
  );
}
