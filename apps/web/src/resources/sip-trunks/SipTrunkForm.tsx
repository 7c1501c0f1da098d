import { maxLength, required, type SipTrunk } from '@atrium/contract';
import { Box } from '@mui/material';
import { useMemo } from 'react';
import { PasswordInput, SimpleForm, TextInput, useRecordContext, useTranslate } from 'react-admin';
import { FormSection } from '../../app/kit/FormSection';
import { GroupsInput } from '../../app/kit/GroupPicker';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { formToolbar } from '../virtual-numbers/FormToolbar';
import { trunkScopes } from './routes';
import { validateOutgoingNumber, validateSipUri } from './transform';

const nameValidate = [required, maxLength(255)];
const numberValidate = [required, validateOutgoingNumber];
const uriValidate = [required, validateSipUri];

export function SipTrunkForm({ mode }: { mode: 'create' | 'edit' }) {
  const translate = useTranslate();
  const record = useRecordContext<SipTrunk>();
  const { can } = useSessionData();
  const readOnly = mode === 'edit' && (record?.can_edit === false || !trunkScopes('edit').some(can));
  const deletable = mode === 'edit' && record?.can_delete !== false && trunkScopes('delete').some(can);
  // The form starts from the record as read: its password is the placeholder, sent back never.
  const formRecord = useMemo(() => (record ? { ...record } : undefined), [record]);
  const toolbar = formToolbar({
    readOnly,
    deletable,
    confirmTitle: translate('sip_trunks.delete_title'),
    confirmContent: translate('sip_trunks.delete_confirm', { name: record?.name ?? '' }),
  });
  return (
    <SimpleForm record={formRecord} toolbar={toolbar} warnWhenUnsavedChanges>
      {readOnly ? <ReadOnlyNotice /> : null}
      <FormSection title="sip_trunks.sections.general" />
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>
        <TextInput source="name" validate={nameValidate} readOnly={readOnly} />
        <TextInput
          source="outgoing_number"
          validate={numberValidate}
          readOnly={readOnly}
          autoComplete="off"
          helperText="sip_trunks.outgoing_number_hint"
        />
        <TextInput
          source="termination_uri"
          validate={uriValidate}
          readOnly={readOnly}
          autoComplete="off"
          helperText="sip_trunks.termination_uri_hint"
        />
      </Box>
      <FormSection title="sip_trunks.sections.account" hint="sip_trunks.account_hint" />
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>
        <TextInput source="login" validate={maxLength(128)} readOnly={readOnly} autoComplete="off" />
        <PasswordInput
          source="password"
          validate={maxLength(128)}
          readOnly={readOnly}
          autoComplete="new-password"
          helperText={mode === 'edit' ? 'sip_trunks.password_kept_hint' : false}
          size="medium"
        />
      </Box>
      <FormSection title="sip_trunks.sections.groups" hint="sip_trunks.groups_hint" />
      <GroupsInput source="domains" label="resources.sip-trunks.fields.domains" validate={required} readOnly={readOnly} fullWidth />
    </SimpleForm>
  );
}
