import type { Device } from '@atrium/contract';
import DownloadIcon from '@mui/icons-material/Download';
import PowerIcon from '@mui/icons-material/PowerSettingsNew';
import SendIcon from '@mui/icons-material/SettingsRemote';
import SwapIcon from '@mui/icons-material/SwapHoriz';
import ScreenIcon from '@mui/icons-material/TapAndPlay';
import { Button, Chip, Stack } from '@mui/material';
import { useState } from 'react';
import { TopToolbar, useDataProvider, useRecordContext, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { downloadFile } from '../../app/kit/download';
import { EditPage } from '../../app/kit/RecordPage';
import { useAlert } from '../../app/useAlert';
import { InitDialog, ProtocolDialog } from './DeviceDialogs';
import { DeviceForm } from './DeviceForm';
import { DEVICE_TOPICS, useLiveRefresh } from './shared';
import { deviceBody } from './transform';

function DeviceTitle() {
  const translate = useTranslate();
  const record = useRecordContext<Device>();
  return <span>{record ? translate('devices.edit_title', { name: record.name }) : translate('devices.title')}</span>;
}

function DeviceActions() {
  const translate = useTranslate();
  const alert = useAlert();
  const dp = useDataProvider<AtriumDataProvider>();
  const record = useRecordContext<Device>();
  const [dialog, setDialog] = useState<'init' | 'protocol' | null>(null);
  const [busy, setBusy] = useState(false);
  if (!record) return <TopToolbar />;
  const managed = record.protocol !== 'none';
  const apply = async () => {
    setBusy(true);
    try {
      await dp.request(`/devices/${record.id}/settings/apply`, { method: 'POST' });
      alert.success('devices.actions.settings_queued');
    } catch (error) {
      alert.error(error);
    } finally {
      setBusy(false);
    }
  };
  // The panel's phonebook: the numbers it may ring and where calls go on (spec entities §7), as a spreadsheet.
  const forwards = async () => {
    setBusy(true);
    try {
      await downloadFile(`/devices/${record.id}/forwards`, { export_format: 'xlsx' }, `device-${record.id}-forwards.xlsx`);
    } catch (error) {
      alert.error(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <TopToolbar sx={{ alignItems: 'center' }}>
      <Chip
        size="small"
        color={record.online ? 'success' : 'default'}
        variant={record.online ? 'filled' : 'outlined'}
        label={translate(record.online ? 'devices.online' : 'devices.offline')}
        data-testid="device-status"
      />
      {record.type === 'panel' ? (
        <Button size="small" startIcon={<DownloadIcon />} disabled={busy} onClick={forwards}>
          {translate('devices.actions.forwards')}
        </Button>
      ) : null}
      {record.can_edit ? (
        <Stack direction="row" sx={{ gap: 1 }}>
          <Button size="small" startIcon={<SendIcon />} disabled={busy || !managed} onClick={apply}>
            {translate('devices.actions.apply_settings')}
          </Button>
          <Button size="small" startIcon={<PowerIcon />} disabled={!managed} onClick={() => setDialog('init')}>
            {translate('devices.actions.init')}
          </Button>
          <Button size="small" startIcon={<SwapIcon />} onClick={() => setDialog('protocol')}>
            {translate('devices.actions.protocol')}
          </Button>
          <Button size="small" startIcon={<ScreenIcon />} component={Link} to={`/devices/remote-control?id=${record.id}`}>
            {translate('devices.actions.remote_control')}
          </Button>
        </Stack>
      ) : null}
      {dialog === 'init' ? <InitDialog device={record} open onClose={() => setDialog(null)} /> : null}
      {dialog === 'protocol' ? <ProtocolDialog device={record} open onClose={() => setDialog(null)} /> : null}
    </TopToolbar>
  );
}

const transform = (values: Record<string, unknown>) => deviceBody(values, 'edit');

export function DeviceEdit() {
  useLiveRefresh(DEVICE_TOPICS.status);
  return (
    <EditPage title={<DeviceTitle />} actions={<DeviceActions />} transform={transform}>
      <DeviceForm mode="edit" />
    </EditPage>
  );
}
