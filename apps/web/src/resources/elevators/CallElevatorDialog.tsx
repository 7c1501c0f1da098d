import { type Elevator, required } from '@atrium/contract';
import CallIcon from '@mui/icons-material/NotificationsActive';
import { Button } from '@mui/material';
import { useState } from 'react';
import { FormDataConsumer, RadioButtonGroupInput, SelectInput, useDataProvider, useRecordContext, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { FormDialog } from '../../app/kit/FormDialog';
import { useAlert } from '../../app/useAlert';
import { useElevatorFloors } from './floors';
import { floorText } from './routes';
import { callBody } from './transform';

const directionChoices = [
  { id: 'up', name: 'elevators.call.up' },
  { id: 'down', name: 'elevators.call.down' },
];

/** The "Call elevator" dialog (spec entities §8): the lift is sent to a floor, or to an apartment's floor. */
export function CallElevatorDialog({ elevator, open, onClose }: { elevator: Elevator; open: boolean; onClose: () => void }) {
  const translate = useTranslate();
  const alert = useAlert();
  const dp = useDataProvider<AtriumDataProvider>();
  const { data: floors = [], isPending } = useElevatorFloors(open ? elevator.id : null, 'all');
  const floorChoices = floors.map((f) => ({ id: f.floor, name: floorText(f) }));
  return (
    <FormDialog
      open={open}
      title={translate('elevators.call.title', { name: elevator.name })}
      record={{ floor: null, apartment: null, direction: 'up' }}
      approveLabel={translate('elevators.call.approve')}
      onClose={onClose}
      onApprove={async (v: Record<string, unknown>) => {
        // An apartment picked before the floor was changed is not sent with the new floor.
        const apartments = floors.find((f) => f.floor === v.floor)?.apartments ?? [];
        const values = apartments.includes(String(v.apartment)) ? v : { ...v, apartment: null };
        try {
          const { data } = await dp.request<{ data: { queued: number } }>(`/elevators/${elevator.id}/call`, {
            method: 'POST',
            body: callBody(values),
          });
          if (data.queued > 0) alert.success('elevators.call.queued', { smart_count: data.queued });
          else alert.warning('elevators.call.none_queued');
          onClose();
        } catch (error) {
          alert.error(error);
          throw error;
        }
      }}
    >
      <SelectInput
        source="floor"
        label="resources.elevators.fields.floor"
        choices={floorChoices}
        isPending={open && isPending}
        validate={required}
        translateChoice={false}
        fullWidth
      />
      <FormDataConsumer>
        {({ formData }) => {
          const apartments = floors.find((f) => f.floor === formData.floor)?.apartments ?? [];
          return apartments.length ? (
            <SelectInput
              source="apartment"
              label="elevators.call.apartment"
              choices={apartments.map((a) => ({ id: a, name: a }))}
              translateChoice={false}
              emptyText="elevators.call.any_apartment"
              fullWidth
            />
          ) : null;
        }}
      </FormDataConsumer>
      <RadioButtonGroupInput source="direction" label="elevators.call.direction" choices={directionChoices} row />
    </FormDialog>
  );
}

/** The edit page's button that opens the call dialog. */
export function CallElevatorButton() {
  const translate = useTranslate();
  const record = useRecordContext<Elevator>();
  const [open, setOpen] = useState(false);
  if (!record) return null;
  return (
    <>
      <Button size="small" startIcon={<CallIcon />} onClick={() => setOpen(true)}>
        {translate('elevators.call.button')}
      </Button>
      <CallElevatorDialog elevator={record} open={open} onClose={() => setOpen(false)} />
    </>
  );
}
