import { type ForwardGroup, maxLength, range, required } from '@atrium/contract';
import { Box } from '@mui/material';
import type { ReactNode } from 'react';
import { AutocompleteInput, NumberInput, ReferenceInput, SimpleForm, TextInput, useRecordContext, useTranslate } from 'react-admin';
import { FormSection } from '../../app/kit/FormSection';
import { GroupInput } from '../../app/kit/GroupPicker';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { DaysInput, TimeOfDayInput } from '../time-rules/shared';
import { formToolbar } from '../virtual-numbers/FormToolbar';
import { ForwardRulesInputs } from '../virtual-numbers/ForwardRulesInputs';
import { byName } from '../virtual-numbers/routes';
import { useFormRecord } from '../virtual-numbers/useFormRecord';
import { toFormValues, validateGroupNumbers, validatePeriodTo, validateTrunk, validateTrunkNumbers } from './transform';

const Grid = ({ children }: { children: ReactNode }) => (
  <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>{children}</Box>
);

const nameValidate = [required, maxLength(255)];
/** Relations the edit page asks for (`with=`), not fields of the group. */
const GROUP_RELATIONS = ['domain'];
const timeoutValidate = [required, range(1, 600)];
const trunkText = (t: { name?: string; outgoing_number?: string } | undefined) =>
  t ? `${t.name ?? ''}${t.outgoing_number ? ` (${t.outgoing_number})` : ''}` : '';

export function ForwardRuleForm({ mode }: { mode: 'create' | 'edit' }) {
  const translate = useTranslate();
  const record = useRecordContext<ForwardGroup>();
  const { can } = useSessionData();
  const readOnly = mode === 'edit' && (record?.can_edit === false || !can('can_edit_forward_rules'));
  const deletable = mode === 'edit' && record?.can_delete !== false && can('can_delete_forward_rules');
  const formRecord = useFormRecord(record, toFormValues, GROUP_RELATIONS);
  const toolbar = formToolbar({
    readOnly,
    deletable,
    confirmTitle: translate('forward_rules.delete_title'),
    confirmContent: translate('forward_rules.delete_confirm', { name: record?.name ?? '' }),
  });
  return (
    <SimpleForm record={formRecord} toolbar={toolbar} warnWhenUnsavedChanges>
      {readOnly ? <ReadOnlyNotice /> : null}
      <FormSection title="forward_rules.sections.general" />
      <Grid>
        <TextInput source="name" validate={nameValidate} readOnly={readOnly} />
        <GroupInput source="domain_id" label="resources.forward-rules.fields.domain_id" validate={required} readOnly={readOnly} />
      </Grid>

      <FormSection title="forward_rules.sections.numbers" hint="forward_rules.numbers_hint" />
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '2fr 1fr' }, columnGap: 2, width: '100%' }}>
        <TextInput
          source="params.numbers"
          label="resources.forward-rules.fields.numbers"
          helperText="forward_rules.numbers_input_hint"
          validate={validateGroupNumbers}
          readOnly={readOnly}
          autoComplete="off"
        />
        <NumberInput
          source="params.timeout"
          label="resources.forward-rules.fields.timeout"
          validate={timeoutValidate}
          step={1}
          readOnly={readOnly}
          size="medium"
        />
      </Box>

      <FormSection title="forward_rules.sections.when" hint="forward_rules.when_hint" />
      <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', alignItems: 'flex-start' }}>
        <DaysInput source="params.days" readOnly={readOnly} />
        <TimeOfDayInput source="params.period.from" label="resources.forward-rules.fields.from" validate={required} readOnly={readOnly} />
        <TimeOfDayInput
          source="params.period.to"
          label="resources.forward-rules.fields.to"
          validate={[required, validatePeriodTo]}
          readOnly={readOnly}
        />
      </Box>

      <FormSection title="forward_rules.sections.trunk" hint="forward_rules.trunk_hint" />
      <Grid>
        <TextInput
          source="params.trunk_numbers"
          label="resources.forward-rules.fields.trunk_numbers"
          helperText="forward_rules.trunk_numbers_hint"
          validate={validateTrunkNumbers}
          readOnly={readOnly}
          autoComplete="off"
        />
        <ReferenceInput source="params.trunk_id" reference="sip-trunks" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
          <AutocompleteInput
            label="resources.forward-rules.fields.trunk_id"
            optionText={trunkText}
            filterToQuery={byName}
            validate={validateTrunk}
            readOnly={readOnly}
          />
        </ReferenceInput>
      </Grid>

      <FormSection title="forward_rules.sections.rules" hint="forward_rules.rules_hint" />
      <ForwardRulesInputs readOnly={readOnly} />
    </SimpleForm>
  );
}
