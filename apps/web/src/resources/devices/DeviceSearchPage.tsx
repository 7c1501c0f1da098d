import { DEVICE_REALTIME, type FoundDevice, isIpv4, required } from '@atrium/contract';
import { Alert, Box, Button, Card, CardContent, Chip, LinearProgress, TextField, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import {
  Form,
  FunctionField,
  TextField as RaTextField,
  Title,
  useDataProvider,
  useListContext,
  useRedirect,
  useTranslate,
} from 'react-admin';
import { useFormContext } from 'react-hook-form';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { GroupInput } from '../../app/kit/GroupPicker';
import { LocalList } from '../../app/kit/LocalList';
import { NotAllowed } from '../../app/kit/RecordPage';
import { useActions } from '../../app/kit/useActions';
import { listenLive } from '../../app/live';
import { useAlert } from '../../app/useAlert';

/** How long the page waits for the server to confirm the results' topic before it starts the search anyway. */
const SUBSCRIBE_WAIT_MS = 2000;

type Phase = 'form' | 'searching' | 'done';
/** A found device as a row of the kit's table: its serial number is its id. */
type FoundRow = FoundDevice & { id: string };

/** The bulk action of the ticked rows: adds them to the group chosen above (the form checks it is chosen). */
function AddFoundButton({ found, onAdded }: { found: readonly FoundRow[]; onAdded: () => void }) {
  const translate = useTranslate();
  const alert = useAlert();
  const dp = useDataProvider<AtriumDataProvider>();
  const { selectedIds } = useListContext();
  const { handleSubmit } = useFormContext<{ domain_id?: number }>();
  const [busy, setBusy] = useState(false);
  const add = async ({ domain_id }: { domain_id?: number }) => {
    const items = found
      .filter((d) => selectedIds.includes(d.id))
      .map((d) => ({ serial_number: d.serial_number, type: d.type, model: d.model, ip_address: d.ip_address, port: d.port, domain_id }));
    setBusy(true);
    try {
      const { data } = await dp.request<{ data: { created: unknown[]; not_created: { serial_number: string; message: string }[] } }>(
        '/devices/found',
        { method: 'PUT', body: { items } },
      );
      alert.success('devices.search.added', { smart_count: data.created.length });
      if (data.not_created.length)
        alert.warning('devices.search.not_added', { list: data.not_created.map((n) => n.serial_number).join(', ') });
      onAdded();
    } catch (error) {
      alert.error(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant="contained" size="small" disabled={busy} onClick={handleSubmit(add)}>
      {translate('devices.search.add', { smart_count: selectedIds.length })}
    </Button>
  );
}

/**
 * The spec's /devices/search (entities §2): probes a range of addresses for devices answering
 * discovery; each one found arrives live under the search's request id. The group the devices go
 * to is asked up front, so adding them is right the first time.
 */
export function DeviceSearchPage() {
  const translate = useTranslate();
  const { can } = useActions();
  const redirect = useRedirect();
  const alert = useAlert();
  const dp = useDataProvider<AtriumDataProvider>();
  const [range, setRange] = useState({ start: '', end: '', port: '80' });
  const [phase, setPhase] = useState<Phase>('form');
  const [found, setFound] = useState<FoundRow[]>([]);
  const stop = useRef<(() => void) | null>(null);
  useEffect(() => () => stop.current?.(), []);

  if (!can('devices.create')) return <NotAllowed />;
  const invalid = !isIpv4(range.start) || !isIpv4(range.end) || !/^\d{1,5}$/.test(range.port);

  const start = async () => {
    stop.current?.();
    const requestId = crypto.randomUUID();
    setFound([]);
    setPhase('searching');
    const topic = DEVICE_REALTIME.searchTopic(requestId);
    // Results are published on the search's topic: listen before starting, so none is missed.
    await new Promise<void>((resolve) => {
      setTimeout(resolve, SUBSCRIBE_WAIT_MS);
      stop.current = listenLive(topic, (m) => {
        if (m.event === 'subscribed') resolve();
        if (m.event === DEVICE_REALTIME.events.found) {
          const d = m.data as FoundDevice;
          setFound((prev) => (prev.some((p) => p.id === d.serial_number) ? prev : [...prev, { ...d, id: d.serial_number }]));
        }
        if (m.event === DEVICE_REALTIME.events.searchDone) setPhase('done');
      });
    });
    try {
      await dp.request('/devices/search', {
        method: 'POST',
        body: { start_ip: range.start, end_ip: range.end, port: Number(range.port), request_id: requestId },
      });
    } catch (error) {
      alert.error(error);
      stop.current?.();
      setPhase('form');
    }
  };

  return (
    <Box sx={{ p: { xs: 1, md: 2 }, maxWidth: 1100 }}>
      {/* The app bar shows the title as the page's one h1. */}
      <Title title={translate('devices.search.title')} />
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        {translate('devices.search.intro')}
      </Typography>
      <Form id="device-search">
        <Card variant="outlined">
          <CardContent>
            <Box
              component="section"
              aria-label={translate('devices.search.range')}
              sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr 120px auto' }, gap: 2, alignItems: 'start' }}
            >
              <TextField
                label={translate('devices.search.start_ip')}
                value={range.start}
                onChange={(e) => setRange({ ...range, start: e.target.value.trim() })}
                disabled={phase === 'searching'}
                error={range.start !== '' && !isIpv4(range.start)}
                required
              />
              <TextField
                label={translate('devices.search.end_ip')}
                value={range.end}
                onChange={(e) => setRange({ ...range, end: e.target.value.trim() })}
                disabled={phase === 'searching'}
                error={range.end !== '' && !isIpv4(range.end)}
                required
              />
              <TextField
                label={translate('resources.devices.fields.port')}
                value={range.port}
                onChange={(e) => setRange({ ...range, port: e.target.value.trim() })}
                disabled={phase === 'searching'}
                required
              />
              <Button variant="outlined" sx={{ height: 56 }} onClick={start} disabled={invalid || phase === 'searching'}>
                {translate('devices.search.start')}
              </Button>
            </Box>
            <GroupInput
              source="domain_id"
              label="resources.devices.fields.domain_id"
              validate={required}
              helperText="devices.search.group_hint"
              sx={{ mt: 2, maxWidth: 520 }}
            />
          </CardContent>
        </Card>
        {phase === 'searching' ? (
          <LinearProgress sx={{ mt: 2 }} aria-label={translate('devices.search.searching', { smart_count: found.length })} />
        ) : null}
        {phase !== 'form' && !found.length ? (
          <Typography variant="body2" sx={{ my: 2 }} role="status">
            {translate(phase === 'done' ? 'devices.search.done' : 'devices.search.searching', { smart_count: found.length })}
          </Typography>
        ) : null}
        {phase === 'done' && !found.length ? (
          <Alert severity="info" variant="outlined">
            {translate('devices.search.nothing')}
          </Alert>
        ) : null}
        {found.length ? (
          <Card variant="outlined" sx={{ mt: 2 }}>
            <LocalList
              header={
                <Typography variant="body2" role="status">
                  {translate(phase === 'done' ? 'devices.search.done' : 'devices.search.searching', { smart_count: found.length })}
                </Typography>
              }
              resource="devices"
              data={found}
              isRowSelectable={(d) => !d.known}
              bulkActionButtons={<AddFoundButton found={found} onAdded={() => redirect('list', 'devices')} />}
            >
              <RaTextField source="serial_number" />
              <FunctionField source="type" render={(d: FoundRow) => translate(`devices.types.${d.type}`)} />
              <RaTextField source="model" />
              <FunctionField source="ip_address" render={(d: FoundRow) => `${d.ip_address}:${d.port}`} />
              <FunctionField
                source="known"
                label="devices.search.state"
                sortable={false}
                render={(d: FoundRow) =>
                  d.known ? (
                    <Chip size="small" variant="outlined" label={translate('devices.search.known')} />
                  ) : (
                    translate('devices.search.new')
                  )
                }
              />
            </LocalList>
          </Card>
        ) : null}
      </Form>
    </Box>
  );
}
