import { DEVICE_EVENT_TYPES, type DeviceEvent } from '@atrium/contract';
import DownloadIcon from '@mui/icons-material/Download';
import { Button } from '@mui/material';
import { useState } from 'react';
import { DateField, DateTimeInput, FunctionField, SelectInput, useListContext, useTranslate } from 'react-admin';
import { filterSource, toFilters, toSort } from '../../app/dataProvider';
import { downloadFile } from '../../app/kit/download';
import { EllipsisField, ListPage, textFilter } from '../../app/kit/ListPage';
import { useAlert } from '../../app/useAlert';

const typeChoices = DEVICE_EVENT_TYPES.map((id) => ({ id, name: `devices.events.types.${id}` }));
const filters = [
  <SelectInput key="type" source="type" label="resources.devices/events.fields.type" choices={typeChoices} alwaysOn />,
  textFilter('identifier', 'begins_with', 'resources.devices/events.fields.identifier'),
  <DateTimeInput key="from" source={filterSource('occurred_at', 'above')} label="resources.devices/events.fields.from" />,
  <DateTimeInput key="to" source={filterSource('occurred_at', 'below')} label="resources.devices/events.fields.to" />,
];

/** Downloads the events the list shows (its filters and sort), all pages, as csv or xlsx. */
function DownloadButtons() {
  const translate = useTranslate();
  const alert = useAlert();
  const { filterValues, sort } = useListContext();
  const [busy, setBusy] = useState(false);
  const download = async (format: 'csv' | 'xlsx') => {
    setBusy(true);
    try {
      const f = toFilters(filterValues);
      await downloadFile(
        '/devices/events/download',
        { export_format: format, sort: toSort(sort), ...(f ? { filters: JSON.stringify(f) } : {}) },
        `device-events.${format}`,
      );
    } catch (error) {
      alert.error(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button size="small" startIcon={<DownloadIcon />} disabled={busy} onClick={() => download('csv')}>
        {translate('devices.events.download_csv')}
      </Button>
      <Button size="small" startIcon={<DownloadIcon />} disabled={busy} onClick={() => download('xlsx')}>
        {translate('devices.events.download_xlsx')}
      </Button>
    </>
  );
}

export function DeviceEventList() {
  const translate = useTranslate();
  return (
    <ListPage
      title={translate('devices.events.title')}
      sort={{ field: 'occurred_at', order: 'DESC' }}
      filters={filters}
      rowClick={false}
      extraActions={<DownloadButtons />}
      fit
    >
      <DateField source="occurred_at" showTime />
      <EllipsisField source="device_name" sortable={false} />
      <FunctionField source="type" render={(e: DeviceEvent) => translate(`devices.events.types.${e.type}`, { _: e.type })} />
      <EllipsisField source="identifier" />
    </ListPage>
  );
}
