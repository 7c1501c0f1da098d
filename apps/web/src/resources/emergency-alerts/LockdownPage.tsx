import type { Lockdown } from '@atrium/contract';
import LockIcon from '@mui/icons-material/Lock';
import LockOpenIcon from '@mui/icons-material/LockOpen';
import { Alert, Box, Button, Card, CardContent, Stack, Typography } from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Confirm, Form, FunctionField, TextInput, Title, useDataProvider, useGetOne, useTranslate } from 'react-admin';
import { useWatch } from 'react-hook-form';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { formatDateTime, useFormat } from '../../app/format';
import { GROUPS_API, GroupInput } from '../../app/kit/GroupPicker';
import { NotAllowed } from '../../app/kit/RecordPage';
import { RecordsList } from '../../app/kit/RecordsList';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';
import { TaskStateField } from './PlaybackPanel';
import { EMERGENCY_API, lockdownInMotion } from './shared';

const KEY = ['emergency', 'lockdowns'];
type LockdownDevice = Lockdown['devices'][number];
const when = (iso: string | null, locale: string) => (iso ? formatDateTime(iso, locale) : '');

function StartLockdown({ onStarted }: { onStarted: () => void }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const notice = useAlert();
  const [pending, setPending] = useState<{ domain_id: number; reason?: string } | null>(null);
  const { data: group } = useGetOne(GROUPS_API, { id: pending?.domain_id ?? 0 }, { enabled: !!pending });
  const start = useMutation({
    mutationFn: (body: { domain_id: number; reason?: string }) =>
      dp.request(`/${EMERGENCY_API}/lockdowns`, { method: 'POST', body: { ...body, confirm: true } }),
    onSuccess: () => {
      notice.success('emergency.lockdown.started', { group: group?.name ?? '' });
      onStarted();
    },
    onError: (e) => notice.error(e),
    onSettled: () => setPending(null),
  });
  return (
    <Card variant="outlined" component="section" aria-labelledby="lockdown-start-title">
      <CardContent>
        <Typography id="lockdown-start-title" variant="h6" component="h2">
          {translate('emergency.lockdown.start')}
        </Typography>
        <Form
          onSubmit={(v: Record<string, unknown>) => {
            const domainId = Number(v.domain_id);
            if (domainId) setPending({ domain_id: domainId, ...(v.reason ? { reason: String(v.reason) } : {}) });
          }}
        >
          <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: { md: 'flex-start' } }}>
            <GroupInput source="domain_id" label="emergency.lockdown.group" sx={{ minWidth: 320 }} />
            <TextInput source="reason" label="emergency.lockdown.reason" sx={{ minWidth: 280 }} />
            <SubmitLock disabled={start.isPending} />
          </Stack>
        </Form>
      </CardContent>
      <Confirm
        isOpen={!!pending && !!group}
        title="emergency.lockdown.start_title"
        translateOptions={{ group: group?.name ?? '' }}
        content={translate('emergency.lockdown.start_confirm', { group: group?.name ?? '' })}
        confirm="emergency.lockdown.start"
        loading={start.isPending}
        onConfirm={() => pending && start.mutate(pending)}
        onClose={() => setPending(null)}
      />
    </Card>
  );
}

function SubmitLock({ disabled }: { disabled: boolean }) {
  const translate = useTranslate();
  const domainId = useWatch({ name: 'domain_id' });
  return (
    <Button type="submit" color="error" variant="contained" startIcon={<LockIcon />} disabled={disabled || !domainId} sx={{ mt: 1 }}>
      {translate('emergency.lockdown.start')}
    </Button>
  );
}

function LockdownCard({ lockdown, mayAct, onChanged }: { lockdown: Lockdown; mayAct: boolean; onChanged: () => void }) {
  const translate = useTranslate();
  const { locale } = useFormat();
  const dp = useDataProvider<AtriumDataProvider>();
  const notice = useAlert();
  // Lifting asks twice: the first confirmation, then a second one.
  const [step, setStep] = useState<0 | 1 | 2>(0);
  const lift = useMutation({
    mutationFn: () => dp.request(`/${EMERGENCY_API}/lockdowns/${lockdown.id}/lift`, { method: 'POST', body: { confirm: true } }),
    onSuccess: () => {
      notice.success('emergency.lockdown.lifted', { group: lockdown.domain_name });
      onChanged();
    },
    onError: (e) => notice.error(e),
    onSettled: () => setStep(0),
  });
  const group = lockdown.domain_name;
  return (
    <Card
      variant="outlined"
      component="article"
      aria-label={group}
      data-testid={`lockdown-${lockdown.id}`}
      sx={lockdown.active ? { borderColor: 'error.main', borderWidth: 2 } : undefined}
    >
      <CardContent>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap' }}>
          <Box>
            <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
              {lockdown.active ? <LockIcon color="error" fontSize="small" sx={{ verticalAlign: 'middle', mr: 0.5 }} /> : null}
              {group}
            </Typography>
            <Typography variant="body2" color="text.secondary">
              {lockdown.active
                ? translate('emergency.lockdown.since', { at: when(lockdown.started_at, locale), by: lockdown.started_by_name ?? '' })
                : translate('emergency.lockdown.ended', {
                    from: when(lockdown.started_at, locale),
                    to: when(lockdown.ended_at, locale),
                    by: lockdown.ended_by_name ?? '',
                  })}
            </Typography>
            {lockdown.reason ? <Typography variant="body2">{lockdown.reason}</Typography> : null}
          </Box>
          {lockdown.active && mayAct ? (
            <Button variant="outlined" color="error" startIcon={<LockOpenIcon />} onClick={() => setStep(1)} disabled={lift.isPending}>
              {translate('emergency.lockdown.lift')}
            </Button>
          ) : null}
        </Stack>
        {lockdown.devices.length ? (
          <RecordsList
            records={lockdown.devices.map((d) => ({ ...d, id: d.device_id }))}
            resource="emergency-lockdown/devices"
            perPage={Math.max(lockdown.devices.length, 1)}
            primary="device_name"
            label={translate('emergency.lockdown.device')}
          >
            <FunctionField
              source="device_name"
              label="emergency.lockdown.device"
              render={(d: LockdownDevice) => (
                <>
                  {d.device_name}
                  <Typography variant="caption" color="text.secondary" sx={{ display: 'block' }}>
                    {translate(d.online ? 'emergency.playback.online' : 'emergency.playback.offline')}
                  </Typography>
                </>
              )}
            />
            <TaskStateField source="lock" label="emergency.lockdown.locked" sortable={false} states="emergency.lockdown.states" />
            <TaskStateField source="release" label="emergency.lockdown.released" sortable={false} states="emergency.lockdown.states" />
          </RecordsList>
        ) : null}
      </CardContent>
      <Confirm
        isOpen={step === 1}
        title="emergency.lockdown.lift_title"
        translateOptions={{ group }}
        content={translate('emergency.lockdown.lift_confirm')}
        confirm="emergency.lockdown.lift"
        onConfirm={() => setStep(2)}
        onClose={() => setStep(0)}
      />
      <Confirm
        isOpen={step === 2}
        title="emergency.lockdown.lift_again_title"
        content={translate('emergency.lockdown.lift_again_confirm', { group })}
        confirm="emergency.lockdown.lift"
        confirmColor="warning"
        loading={lift.isPending}
        onConfirm={() => lift.mutate()}
        onClose={() => setStep(0)}
      />
    </Card>
  );
}

/** /emergency-lockdown: lock down a group's doors, see each door's state live, and lift it with a second confirmation. */
export function LockdownPage() {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const queryClient = useQueryClient();
  const { can } = useSessionData();
  const list = useQuery({
    queryKey: KEY,
    queryFn: async () => (await dp.request<{ data: Lockdown[] }>(`/${EMERGENCY_API}/lockdowns`, { query: { size: 50 } })).data,
    refetchInterval: (q) => ((q.state.data ?? []).some(lockdownInMotion) ? 1000 : 10_000),
    enabled: can('can_view_emergency_alerts'),
  });
  if (!can('can_view_emergency_alerts')) return <NotAllowed />;
  const mayAct = can('can_playback_emergency_alerts');
  const changed = () => void queryClient.invalidateQueries({ queryKey: KEY });
  const active = (list.data ?? []).filter((l) => l.active);
  const past = (list.data ?? []).filter((l) => !l.active);
  return (
    <Box sx={{ p: 2, display: 'grid', gap: 2 }}>
      <Title title={translate('emergency.lockdown.title')} />
      <Typography variant="body2" color="text.secondary">
        {translate('emergency.lockdown.hint')}
      </Typography>
      {list.error ? <Alert severity="error">{String((list.error as Error).message)}</Alert> : null}
      {mayAct ? <StartLockdown onStarted={changed} /> : null}
      <Typography variant="h6" component="h2">
        {translate('emergency.lockdown.active')}
      </Typography>
      {active.length ? (
        active.map((l) => <LockdownCard key={l.id} lockdown={l} mayAct={mayAct} onChanged={changed} />)
      ) : (
        <Typography variant="body2" color="text.secondary">
          {translate('emergency.lockdown.none_active')}
        </Typography>
      )}
      <Typography variant="h6" component="h2">
        {translate('emergency.lockdown.history')}
      </Typography>
      {past.length ? (
        past.map((l) => <LockdownCard key={l.id} lockdown={l} mayAct={false} onChanged={changed} />)
      ) : (
        <Typography variant="body2" color="text.secondary">
          {translate('emergency.lockdown.none')}
        </Typography>
      )}
    </Box>
  );
}
