import { type Marker, maxLength, required } from '@atrium/contract';
import { Box } from '@mui/material';
import { SimpleForm, TextInput, useRecordContext, useTranslate } from 'react-admin';
import { GroupInput } from '../../app/kit/GroupPicker';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { formToolbar } from '../virtual-numbers/FormToolbar';

const COLOR = /^#[0-9a-fA-F]{6}$/;
/** `#rrggbb`, as the server takes it. */
export const validateColor = (v: unknown) => (typeof v === 'string' && COLOR.test(v.trim()) ? undefined : 'validation.invalid_value');
const nameValidate = [required, maxLength(64)];
const colorValidate = [required, validateColor];

export function MarkerForm({ mode }: { mode: 'create' | 'edit' }) {
  const translate = useTranslate();
  const record = useRecordContext<Marker>();
  const { can } = useSessionData();
  const readOnly = mode === 'edit' && (record?.can_edit === false || !can('can_edit_markers'));
  const deletable = mode === 'edit' && record?.can_delete !== false && can('can_delete_markers');
  const toolbar = formToolbar({
    readOnly,
    deletable,
    confirmTitle: translate('markers.delete_title'),
    confirmContent: translate('markers.delete_confirm', { name: record?.name ?? '' }),
  });
  return (
    <SimpleForm toolbar={toolbar} warnWhenUnsavedChanges>
      {readOnly ? <ReadOnlyNotice /> : null}
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '2fr 1fr' }, columnGap: 2, width: '100%' }}>
        <TextInput source="name" validate={nameValidate} readOnly={readOnly} />
        <TextInput
          source="color"
          type="color"
          validate={colorValidate}
          readOnly={readOnly}
          helperText="markers.color_hint"
          slotProps={{ htmlInput: { 'aria-label': translate('resources.markers.fields.color') } }}
        />
      </Box>
      <GroupInput source="domain_id" label="resources.markers.fields.domain_id" validate={required} readOnly={readOnly} fullWidth />
    </SimpleForm>
  );
}
