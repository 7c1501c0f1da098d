import { useTranslate } from 'react-admin';
import { CreatePage } from '../../app/kit/RecordPage';
import { useActions } from '../../app/kit/useActions';
import { DeviceForm } from './DeviceForm';
import { deviceBody, newDeviceRecord } from './transform';

const transform = (values: Record<string, unknown>) => deviceBody(values, 'create');

export function DeviceCreate() {
  const translate = useTranslate();
  const { can } = useActions();
  return (
    <CreatePage allowed={can('devices.create')} title={translate('devices.create_title')} transform={transform} record={newDeviceRecord()}>
      <DeviceForm mode="create" />
    </CreatePage>
  );
}
