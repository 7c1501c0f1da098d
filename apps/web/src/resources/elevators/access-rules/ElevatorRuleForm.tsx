import { type ElevatorRule, maxLength, required, type User } from '@atrium/contract';
import AddIcon from '@mui/icons-material/Add';
import { Button } from '@mui/material';
import {
  ArrayInput,
  AutocompleteArrayInput,
  AutocompleteInput,
  FormDataConsumer,
  ReferenceArrayInput,
  ReferenceInput,
  SelectArrayInput,
  SimpleForm,
  SimpleFormIterator,
  TextInput,
  useRecordContext,
  useSimpleFormIterator,
  useTranslate,
} from 'react-admin';
import { FormSection } from '../../../app/kit/FormSection';
import { ReadOnlyNotice } from '../../../app/kit/RecordPage';
import { useElevatorFloors } from '../floors';
import { floorText } from '../routes';
import { validateRuleElevators, validateRuleUsers } from './transform';

// Server-side search: the name contains what was typed.
const byName = (q: string) => (q ? { 'name@has': q } : {});
const userText = (u: Partial<User> | undefined) => (u ? `${u.name ?? ''}${u.login ? ` (${u.login})` : ''}` : '');
const nameValidate = [required, maxLength(255)];

/** The floors of the row's elevator a rule may grant (neither public nor the panel floor). */
function FloorsInput({ elevatorId, readOnly }: { elevatorId: unknown; readOnly: boolean }) {
  const translate = useTranslate();
  const { data: floors = [], isFetching } = useElevatorFloors(elevatorId, 'access');
  const picked = elevatorId !== null && elevatorId !== undefined && elevatorId !== '';
  return (
    <SelectArrayInput
      source="floors"
      label="resources.elevators/access-rules.fields.floors"
      choices={floors.map((f) => ({ id: f.floor, name: floorText(f) }))}
      translateChoice={false}
      isPending={picked && isFetching}
      disabled={!picked}
      readOnly={readOnly}
      helperText={picked && !isFetching && floors.length === 0 ? translate('elevator_rules.no_access_floors') : undefined}
      sx={{ minWidth: 280 }}
    />
  );
}

function AddElevatorButton() {
  const translate = useTranslate();
  const { add } = useSimpleFormIterator();
  return (
    <Button size="small" startIcon={<AddIcon />} onClick={() => add({ id: null, floors: [] })}>
      {translate('elevator_rules.add_elevator')}
    </Button>
  );
}

export function ElevatorRuleForm({ mode }: { mode: 'create' | 'edit' }) {
  const record = useRecordContext<ElevatorRule>();
  const readOnly = mode === 'edit' && record?.can_edit === false;
  return (
    <SimpleForm toolbar={readOnly ? false : undefined} warnWhenUnsavedChanges>
      {readOnly ? <ReadOnlyNotice /> : null}
      <FormSection title="elevator_rules.sections.general" />
      <TextInput source="name" validate={nameValidate} readOnly={readOnly} sx={{ maxWidth: 480 }} fullWidth />
      <TextInput source="description" multiline minRows={2} validate={maxLength(1000)} readOnly={readOnly} fullWidth />

      <FormSection title="elevator_rules.sections.users" hint="elevator_rules.users_hint" />
      <ReferenceArrayInput source="users" reference="users" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
        <AutocompleteArrayInput
          label="resources.elevators/access-rules.fields.users"
          optionText={userText}
          filterToQuery={byName}
          validate={validateRuleUsers}
          isRequired
          readOnly={readOnly}
          fullWidth
        />
      </ReferenceArrayInput>

      <FormSection title="elevator_rules.sections.elevators" hint="elevator_rules.elevators_hint" />
      <ArrayInput source="elevators" label={false} validate={validateRuleElevators} isRequired>
        <SimpleFormIterator
          inline
          disableReordering
          disableClear
          disableAdd={readOnly}
          disableRemove={readOnly}
          addButton={<AddElevatorButton />}
        >
          <ReferenceInput source="id" reference="elevators" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
            <AutocompleteInput
              label="resources.elevators/access-rules.fields.elevator"
              filterToQuery={byName}
              validate={required}
              readOnly={readOnly}
              sx={{ minWidth: 280 }}
            />
          </ReferenceInput>
          <FormDataConsumer>{({ scopedFormData }) => <FloorsInput elevatorId={scopedFormData?.id} readOnly={readOnly} />}</FormDataConsumer>
        </SimpleFormIterator>
      </ArrayInput>
    </SimpleForm>
  );
}
