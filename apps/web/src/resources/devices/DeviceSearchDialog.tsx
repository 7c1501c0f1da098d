import { DEVICE_REALTIME, type FoundDevice, isIpv4, required } from '@atrium/contract';
import {
  Alert,
  Box,
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  LinearProgress,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { Form, useDataProvider, useRefresh, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { GroupInput } from '../../app/kit/GroupPicker';
import { listenLive } from '../../app/live';
import { useAlert } from '../../app/useAlert';

/** How long the page waits for the server to confirm the results' topic before it starts the search anyway. */
const SUBSCRIBE_WAIT_MS = 2000;

type Phase = 'form' | 'searching' | 'done';

/**
 * IP search (spec entities §2): probes a range of addresses for devices answering discovery; each
 * one found arrives live under the search's request id; the installer picks some, a group, and adds them.
 */
export function DeviceSearchDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const translate = useTranslate();
  const alert = useAlert();
  const refresh = useRefresh();
  const dp = useDataProvider<AtriumDataProvider>();
  const [range, setRange] = useState({ start: '', end: '', port: '80' });
  const [phase, setPhase] = useState<Phase>('form');
  const [found, setFound] = useState<FoundDevice[]>([]);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const stop = useRef<(() => void) | null>(null);

  useEffect(() => () => stop.current?.(), []);

  const invalid = !isIpv4(range.start) || !isIpv4(range.end) || !/^\d{1,5}$/.test(range.port);

  const close = () => {
    stop.current?.();
    stop.current = null;
    setPhase('form');
    setFound([]);
    setChosen(new Set());
    onClose();
  };

  const start = async () => {
    const requestId = crypto.randomUUID();
    setFound([]);
    setChosen(new Set());
    setPhase('searching');
    const topic = DEVICE_REALTIME.searchTopic(requestId);
    // Results are published on the search's topic: listen before starting, so none is missed.
    const subscribed = new Promise<void>((resolve) => {
      setTimeout(resolve, SUBSCRIBE_WAIT_MS);
      stop.current = listenLive(topic, (m) => {
        if (m.event === 'subscribed') resolve();
        if (m.event === DEVICE_REALTIME.events.found) {
          const d = m.data as FoundDevice;
          setFound((prev) => (prev.some((p) => p.serial_number === d.serial_number) ? prev : [...prev, d]));
        }
        if (m.event === DEVICE_REALTIME.events.searchDone) setPhase('done');
      });
    });
    await subscribed;
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

  const add = async (values: { domain_id?: number }) => {
    const items = found
      .filter((d) => chosen.has(d.serial_number))
      .map((d) => ({
        serial_number: d.serial_number,
        type: d.type,
        model: d.model,
        ip_address: d.ip_address,
        port: d.port,
        domain_id: values.domain_id,
      }));
    try {
      const { data } = await dp.request<{ data: { created: unknown[]; not_created: { serial_number: string; message: string }[] } }>(
        '/devices/found',
        { method: 'PUT', body: { items } },
      );
      alert.success('devices.search.added', { smart_count: data.created.length });
      if (data.not_created.length)
        alert.warning('devices.search.not_added', { list: data.not_created.map((n) => n.serial_number).join(', ') });
      refresh();
      close();
    } catch (error) {
      alert.error(error);
    }
  };

  const toggle = (serial: string) =>
    setChosen((prev) => {
      const next = new Set(prev);
      if (next.has(serial)) next.delete(serial);
      else next.add(serial);
      return next;
    });

  return (
    <Dialog open={open} onClose={close} fullWidth maxWidth="md" aria-labelledby="device-search-title">
      <DialogTitle id="device-search-title">{translate('devices.search.title')}</DialogTitle>
      <DialogContent>
        <Box sx={{ display: 'grid', gridTemplateColumns: '1fr 1fr 120px', gap: 2, pt: 1 }}>
          <TextField
            label={translate('devices.search.start_ip')}
            value={range.start}
            onChange={(e) => setRange({ ...range, start: e.target.value.trim() })}
            disabled={phase === 'searching'}
            error={range.start !== '' && !isIpv4(range.start)}
          />
          <TextField
            label={translate('devices.search.end_ip')}
            value={range.end}
            onChange={(e) => setRange({ ...range, end: e.target.value.trim() })}
            disabled={phase === 'searching'}
            error={range.end !== '' && !isIpv4(range.end)}
          />
          <TextField
            label={translate('resources.devices.fields.port')}
            value={range.port}
            onChange={(e) => setRange({ ...range, port: e.target.value.trim() })}
            disabled={phase === 'searching'}
          />
        </Box>
        {phase === 'searching' ? <LinearProgress sx={{ my: 2 }} aria-label={translate('devices.search.searching')} /> : null}
        {phase !== 'form' ? (
          <Typography variant="body2" sx={{ my: 1 }} role="status">
            {translate(phase === 'done' ? 'devices.search.done' : 'devices.search.searching', { smart_count: found.length })}
          </Typography>
        ) : null}
        {found.length ? (
          <Table size="small">
            <TableHead>
              <TableRow>
                <TableCell padding="checkbox" />
                <TableCell>{translate('resources.devices.fields.serial_number')}</TableCell>
                <TableCell>{translate('resources.devices.fields.type')}</TableCell>
                <TableCell>{translate('resources.devices.fields.model')}</TableCell>
                <TableCell>{translate('resources.devices.fields.ip_address')}</TableCell>
                <TableCell />
              </TableRow>
            </TableHead>
            <TableBody>
              {found.map((d) => (
                <TableRow key={d.serial_number}>
                  <TableCell padding="checkbox">
                    <Checkbox
                      checked={chosen.has(d.serial_number)}
                      disabled={d.known}
                      onChange={() => toggle(d.serial_number)}
                      slotProps={{ input: { 'aria-label': d.serial_number } }}
                    />
                  </TableCell>
                  <TableCell>{d.serial_number}</TableCell>
                  <TableCell>{translate(`devices.types.${d.type}`)}</TableCell>
                  <TableCell>{d.model}</TableCell>
                  <TableCell>{`${d.ip_address}:${d.port}`}</TableCell>
                  <TableCell>{d.known ? translate('devices.search.known') : ''}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        ) : null}
        {phase === 'done' && !found.length ? (
          <Alert severity="info" variant="outlined" sx={{ mt: 1 }}>
            {translate('devices.search.nothing')}
          </Alert>
        ) : null}
        {chosen.size ? (
          <Form onSubmit={(v: Record<string, unknown>) => add(v as { domain_id?: number })} id="device-search-add">
            <Box sx={{ mt: 2 }}>
              <GroupInput source="domain_id" label="resources.devices.fields.domain_id" validate={required} />
            </Box>
          </Form>
        ) : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={close}>{translate('ra.action.close')}</Button>
        <Button onClick={start} disabled={invalid || phase === 'searching'}>
          {translate('devices.search.start')}
        </Button>
        <Button type="submit" form="device-search-add" variant="contained" disabled={!chosen.size}>
          {translate('devices.search.add', { smart_count: chosen.size })}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
