import { DEVICE_TASK_TYPES, type DeviceTask } from '@atrium/contract';
import RefreshIcon from '@mui/icons-material/Replay';
import RestartIcon from '@mui/icons-material/RestartAlt';
import { IconButton, Stack, Tooltip } from '@mui/material';
import { useState } from 'react';
import { FunctionField, SelectInput, useDataProvider, useRecordContext, useRefresh, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { DateTimeField, LocaleNumberField } from '../../app/kit/LocaleFields';
import { useActions } from '../../app/kit/useActions';
import { taskErrorText } from '../../app/task-error';
import { useAlert } from '../../app/useAlert';
import { DEVICE_TOPICS, stateChoices, TaskStateField, useLiveRefresh } from './shared';

const typeChoices = DEVICE_TASK_TYPES.map((id) => ({ id, name: `devices.tasks.types.${id}` }));
const filters = [
  <SelectInput key="state" source="state" label="resources.devices/tasks.fields.state" choices={stateChoices} alwaysOn />,
  <SelectInput key="type" source="type" label="resources.devices/tasks.fields.type" choices={typeChoices} />,
];

/** Run a finished task again, or initialise its device again. */
function TaskActions(_: { label?: string }) {
  const translate = useTranslate();
  const alert = useAlert();
  const refresh = useRefresh();
  const dp = useDataProvider<AtriumDataProvider>();
  const task = useRecordContext<DeviceTask>();
  const { can } = useActions();
  const [busy, setBusy] = useState(false);
  if (!task || !can('devices.edit')) return null;
  const run = async (what: 'restart' | 'reinit') => {
    setBusy(true);
    try {
      await dp.request(`/devices/tasks/${task.id}/${what}`, { method: 'POST' });
      alert.success('devices.tasks.restarted');
      refresh();
    } catch (error) {
      alert.error(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack direction="row" onClick={(e) => e.stopPropagation()}>
      <Tooltip title={translate('devices.tasks.restart')}>
        <span>
          <IconButton size="small" aria-label={translate('devices.tasks.restart')} disabled={busy} onClick={() => run('restart')}>
            <RefreshIcon fontSize="small" />
          </IconButton>
        </span>
      </Tooltip>
      <Tooltip title={translate('devices.tasks.reinit')}>
        <span>
          <IconButton size="small" aria-label={translate('devices.tasks.reinit')} disabled={busy} onClick={() => run('reinit')}>
            <RestartIcon fontSize="small" />
          </IconButton>
        </span>
      </Tooltip>
    </Stack>
  );
}

export function DeviceTaskList() {
  const translate = useTranslate();
  const { can } = useActions();
  useLiveRefresh(DEVICE_TOPICS.tasks);
  return (
    <ListPage
      title={translate('devices.tasks.title')}
      sort={{ field: 'created_at', order: 'DESC' }}
      filters={filters}
      canDelete={can('devices.edit')}
      rowClick={false}
      omit={['id', 'serial_number', 'attempts']}
      secondary={['finished_at']}
    >
      <EllipsisField source="id" />
      <EllipsisField source="device_name" sortable={false} />
      <EllipsisField source="serial_number" sortable={false} />
      <FunctionField source="type" render={(t: DeviceTask) => translate(`devices.tasks.types.${t.type}`)} />
      <TaskStateField source="state" />
      <EllipsisField source="error" sortable={false} render={(r) => taskErrorText(translate, (r as DeviceTask).error)} />
      <LocaleNumberField source="attempts" sortable={false} emptyText="—" />
      <DateTimeField source="created_at" />
      <DateTimeField source="finished_at" sortable={false} />
      <TaskActions label="" />
    </ListPage>
  );
}
