import type { EmergencyAlert } from '@atrium/contract';
import { Chip } from '@mui/material';
import { BooleanField, FunctionField, TextInput, useRecordContext, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';
import { CreatePage, EditPage } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { EmergencyAlertForm } from './EmergencyAlertForm';
import { PlaybackPanel } from './PlaybackPanel';
import { SoundPanel } from './SoundPanel';
import { alertBody, EMERGENCY_ROUTES, EMERGENCY_WITH } from './shared';

const filters = [<TextInput key="search" source="search" label="resources.emergency-alerts.fields.search" resettable alwaysOn />];

export function AlertStatus({ alert }: { alert: Pick<EmergencyAlert, 'status'> }) {
  const translate = useTranslate();
  return (
    <Chip
      size="small"
      color={alert.status === 'playing' ? 'error' : 'default'}
      variant={alert.status === 'playing' ? 'filled' : 'outlined'}
      label={translate(`emergency.status.${alert.status}`)}
    />
  );
}

export function EmergencyAlertList() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <ApiRoutes routes={EMERGENCY_ROUTES}>
      <ListPage
        title={translate('emergency.title')}
        sort={{ field: 'name', order: 'ASC' }}
        filters={filters}
        canCreate={can('can_create_emergency_alerts')}
        canDelete={can('can_delete_emergency_alerts')}
        addRoute
        omit={['id', 'created_at']}
      >
        <EllipsisField source="id" />
        <EllipsisField source="name" />
        <FunctionField source="device_type" render={(a: EmergencyAlert) => translate(`devices.types.${a.device_type}`)} />
        <EllipsisField source="playback_duration" />
        <BooleanField source="open_locks" />
        <FunctionField source="filename" sortable={false} render={(a: EmergencyAlert) => a.filename ?? translate('emergency.sound.none')} />
        <FunctionField source="status" sortable={false} render={(a: EmergencyAlert) => <AlertStatus alert={a} />} />
        <DateTimeField source="started_at" sortable={false} />
        <DateTimeField source="created_at" />
      </ListPage>
    </ApiRoutes>
  );
}

const transform = (values: Record<string, unknown>) => alertBody(values);

export function EmergencyAlertCreate() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <ApiRoutes routes={EMERGENCY_ROUTES}>
      <CreatePage
        allowed={can('can_create_emergency_alerts')}
        title={translate('emergency.create_title')}
        record={{ device_type: 'monitor', playback_duration: 60, open_locks: false, domains: [], devices: [] }}
        transform={transform}
      >
        <EmergencyAlertForm mode="create" />
      </CreatePage>
    </ApiRoutes>
  );
}

function EmergencyAlertTitle() {
  const translate = useTranslate();
  const record = useRecordContext<EmergencyAlert>();
  return <span>{record ? translate('emergency.edit_title', { name: record.name }) : translate('emergency.title')}</span>;
}

export function EmergencyAlertEdit() {
  return (
    <ApiRoutes routes={EMERGENCY_ROUTES}>
      <EditPage title={<EmergencyAlertTitle />} transform={transform} queryOptions={EMERGENCY_WITH} mutationOptions={EMERGENCY_WITH}>
        <EmergencyAlertForm mode="edit" />
        <EditPanels />
      </EditPage>
    </ApiRoutes>
  );
}

/** Below the form: the sound (upload, generate, preview) and the playback with every device's state. */
function EditPanels() {
  const record = useRecordContext<EmergencyAlert>();
  if (!record) return null;
  return (
    <>
      <SoundPanel alert={record} />
      <PlaybackPanel alert={record} />
    </>
  );
}
