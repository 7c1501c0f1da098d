import { ANNOUNCE_LIMITS, type Announce, maxLength, required } from '@atrium/contract';
import { Alert, Box } from '@mui/material';
import {
  ArrayInput,
  AutocompleteArrayInput,
  BooleanInput,
  DateTimeInput,
  FormDataConsumer,
  RadioButtonGroupInput,
  ReferenceArrayInput,
  SelectInput,
  SimpleForm,
  SimpleFormIterator,
  TextInput,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { FormSection } from '../../app/kit/FormSection';
import { GroupsInput } from '../../app/kit/GroupPicker';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { formToolbar } from '../virtual-numbers/FormToolbar';
import { pollProblem, recipientsProblem } from './poll';
import { RichTextInput } from './RichTextInput';

const typeChoices = ['info', 'poll'].map((id) => ({ id, name: `announces.types.${id}` }));
const sendViaChoices = ['email', 'app', 'email_app'].map((id) => ({ id, name: `announces.send_via.${id}` }));
const nameValidate = [required, maxLength(ANNOUNCE_LIMITS.name)];
const subjectValidate = [required, maxLength(ANNOUNCE_LIMITS.subject)];
const textValidate = [required, maxLength(ANNOUNCE_LIMITS.text)];
const byName = (q: string) => (q ? { 'name@has': q } : {});
const userText = (u: { name?: string; login?: string } | undefined) => (u ? `${u.name ?? ''}${u.login ? ` (${u.login})` : ''}` : '');

/** The rules of spec comms §5, checked before the server checks them again. */
export function validateAnnounce(values: Record<string, unknown>): Record<string, unknown> {
  const errors: Record<string, unknown> = {};
  const recipients = recipientsProblem(values.users, values.domains);
  if (recipients) errors.users = recipients;
  const poll = pollProblem(values.type as string, values.type_info as never);
  if (poll) errors.type_info = { questions: poll };
  return errors;
}

/** The poll's questions, each with its answers (an own answer may stand in for answers). */
function QuestionsEditor({ readOnly }: { readOnly: boolean }) {
  const translate = useTranslate();
  return (
    <>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', columnGap: 3 }}>
        <BooleanInput source="type_info.poll_multi_answers_allowed" label="announces.multi" readOnly={readOnly} />
        <BooleanInput source="type_info.poll_user_answer_allowed" label="announces.own" readOnly={readOnly} />
      </Box>
      <ArrayInput source="type_info.questions" label={false}>
        <SimpleFormIterator
          disableReordering={readOnly}
          disableAdd={readOnly}
          disableRemove={readOnly}
          getItemLabel={(i) => translate('announces.question', { n: i + 1 })}
          sx={{ '& .RaSimpleFormIterator-line': { borderBottom: 1, borderColor: 'divider', py: 1 } }}
          fullWidth
        >
          <TextInput source="text" label="announces.question_field" validate={textValidate} readOnly={readOnly} fullWidth multiline />
          <ArrayInput source="answers" label={false}>
            <SimpleFormIterator
              inline
              disableReordering
              disableAdd={readOnly}
              disableRemove={readOnly}
              getItemLabel={(i) => translate('announces.answer', { n: i + 1 })}
            >
              <TextInput source="text" label="announces.answer_field" validate={textValidate} readOnly={readOnly} sx={{ minWidth: 280 }} />
            </SimpleFormIterator>
          </ArrayInput>
        </SimpleFormIterator>
      </ArrayInput>
    </>
  );
}

export function AnnounceForm({ mode }: { mode: 'create' | 'edit' }) {
  const translate = useTranslate();
  const record = useRecordContext<Announce>();
  const { can } = useSessionData();
  const locked = mode === 'edit' && !!record && record.stats.recipients > 0;
  const readOnly = mode === 'edit' && (locked || record?.can_edit === false || !can('can_edit_announces'));
  const deletable = mode === 'edit' && record?.can_delete !== false && can('can_delete_announces');
  const toolbar = formToolbar({
    readOnly,
    deletable,
    confirmTitle: translate('ra.message.delete_title', {
      name: translate('resources.announces.name', { smart_count: 1 }),
      recordRepresentation: record?.name ?? '',
    }),
    confirmContent: translate('ra.message.delete_content'),
  });
  return (
    <SimpleForm toolbar={toolbar} validate={validateAnnounce} warnWhenUnsavedChanges>
      {locked ? (
        <Alert severity="info" variant="outlined" sx={{ mb: 2, width: '100%' }}>
          {translate('announces.locked')}
        </Alert>
      ) : readOnly ? (
        <ReadOnlyNotice />
      ) : null}
      <FormSection title={translate('announces.section_message')} />
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>
        <TextInput source="name" validate={nameValidate} readOnly={readOnly} />
        <TextInput source="subject" validate={subjectValidate} readOnly={readOnly} />
      </Box>
      <TextInput source="description" readOnly={readOnly} fullWidth multiline validate={maxLength(ANNOUNCE_LIMITS.description)} />
      <RadioButtonGroupInput source="type" choices={typeChoices} readOnly={readOnly} />
      <RichTextInput source="body" label="resources.announces.fields.body" readOnly={readOnly} />

      <FormDataConsumer>
        {({ formData }) =>
          formData.type === 'poll' ? (
            <Box sx={{ width: '100%' }}>
              <FormSection title={translate('announces.section_poll')} />
              <QuestionsEditor readOnly={readOnly} />
            </Box>
          ) : null
        }
      </FormDataConsumer>

      <FormSection title={translate('announces.section_recipients')} hint={translate('announces.recipients_hint')} />
      <ReferenceArrayInput source="users" reference="users" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
        <AutocompleteArrayInput
          label="resources.announces.fields.users"
          optionText={userText}
          filterToQuery={byName}
          readOnly={readOnly}
          fullWidth
        />
      </ReferenceArrayInput>
      <GroupsInput source="domains" label="resources.announces.fields.domains" readOnly={readOnly} fullWidth />

      <FormSection title={translate('announces.section_sending')} />
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>
        <SelectInput source="send_via" choices={sendViaChoices} validate={required} readOnly={readOnly} />
        <DateTimeInput source="execute_at" helperText="announces.execute_at_hint" readOnly={readOnly} />
      </Box>
      <BooleanInput source="use_owner_info" readOnly={readOnly} />
    </SimpleForm>
  );
}
