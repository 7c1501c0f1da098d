import { maxLength, range, required } from '@atrium/contract';
import AddIcon from '@mui/icons-material/Add';
import SortIcon from '@mui/icons-material/Sort';
import { Button, Stack, Typography } from '@mui/material';
import {
  ArrayInput,
  BooleanInput,
  NumberInput,
  SelectArrayInput,
  SimpleFormIterator,
  TextInput,
  useArrayInput,
  useSimpleFormIterator,
  useTranslate,
} from 'react-admin';
import { useFormContext } from 'react-hook-form';
import { nextFloorRow, portChoices, sortFloors, validateFloorMap, validateFloorRow, validatePorts } from './transform';

/** Adds the floor above the highest one, on the first free relay port. */
function AddFloorButton({ relays }: { relays: number }) {
  const translate = useTranslate();
  const { add, source } = useSimpleFormIterator();
  const { getValues } = useFormContext();
  return (
    <Button size="small" startIcon={<AddIcon />} onClick={() => add(nextFloorRow(getValues(source), relays))}>
      {translate('elevators.floor_map.add_floor')}
    </Button>
  );
}

/** Puts the rows in floor order again after floor numbers were changed. */
function SortFloorsButton() {
  const translate = useTranslate();
  const { source } = useSimpleFormIterator();
  const { getValues } = useFormContext();
  const { replace } = useArrayInput();
  return (
    <Button size="small" startIcon={<SortIcon />} onClick={() => replace(sortFloors(getValues(source) ?? []))}>
      {translate('elevators.floor_map.sort')}
    </Button>
  );
}

const floorValidate = [required, range(-20, 300)];
const apartmentsValidate = [maxLength(2000), validateFloorRow('apartments_on_panel')];
const publicValidate = validateFloorRow('public_and_panel');
const panelValidate = validateFloorRow('public_and_panel', 'apartments_on_panel');

/**
 * The floor map of one lift controller: a row per floor with its number, name, apartments, the
 * public and panel-floor switches and the relay ports (1…the model's relays) that serve it.
 */
export function FloorMapInput({ relays, readOnly }: { relays: number; readOnly: boolean }) {
  const translate = useTranslate();
  const choices = portChoices(relays);
  return (
    <>
      <Typography variant="subtitle2" component="h3" sx={{ mt: 1 }}>
        {translate('elevators.floor_map.title')}
      </Typography>
      <Typography variant="body2" color="text.secondary">
        {relays > 0 ? translate('elevators.floor_map.hint', { relays }) : translate('elevators.floor_map.pick_controller')}
      </Typography>
      <ArrayInput source="floor_map" label={false} validate={validateFloorMap(relays)} isRequired>
        <SimpleFormIterator
          inline
          disableReordering
          disableClear
          disableAdd={readOnly}
          disableRemove={readOnly}
          addButton={
            <Stack direction="row" sx={{ gap: 1 }}>
              <AddFloorButton relays={relays} />
              <SortFloorsButton />
            </Stack>
          }
          sx={{ '& .RaSimpleFormIterator-line': { alignItems: 'flex-start', borderBottom: 1, borderColor: 'divider', py: 0.5 } }}
        >
          <NumberInput
            source="floor"
            label="resources.elevators.fields.floor"
            validate={floorValidate}
            step={1}
            readOnly={readOnly}
            sx={{ width: 100 }}
          />
          <TextInput
            source="name"
            label="resources.elevators.fields.floor_name"
            validate={maxLength(64)}
            readOnly={readOnly}
            sx={{ width: 150 }}
          />
          <TextInput
            source="apartments"
            label="resources.elevators.fields.apartments"
            helperText="elevators.floor_map.apartments_hint"
            validate={apartmentsValidate}
            readOnly={readOnly}
            sx={{ width: 220 }}
          />
          <BooleanInput source="is_public" label="resources.elevators.fields.is_public" validate={publicValidate} readOnly={readOnly} />
          <BooleanInput
            source="is_panel_floor"
            label="resources.elevators.fields.is_panel_floor"
            validate={panelValidate}
            readOnly={readOnly}
          />
          <SelectArrayInput
            source="ports"
            label="resources.elevators.fields.ports"
            choices={choices}
            validate={validatePorts(relays)}
            disabled={relays === 0}
            readOnly={readOnly}
            sx={{ minWidth: 130 }}
          />
        </SimpleFormIterator>
      </ArrayInput>
    </>
  );
}
