import { RESERVATION_STATUSES, type Reservation, type ReservationLog, type ReservationStatus, required } from '@atrium/contract';
import CancelIcon from '@mui/icons-material/EventBusy';
import {
  Alert,
  Box,
  Button,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  List,
  ListItem,
  ListItemText,
  Typography,
} from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import {
  AutocompleteInput,
  DateInput,
  FunctionField,
  NumberInput,
  ReferenceInput,
  SelectInput,
  SimpleForm,
  TextInput,
  TopToolbar,
  useDataProvider,
  useNotify,
  useRecordContext,
  useRefresh,
  useTranslate,
} from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { formatDateTime, useFormat } from '../../app/format';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { FormSection } from '../../app/kit/FormSection';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';
import { CreatePage, EditPage } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { SlotPicker } from './SlotPicker';
import { createReservationBody, type ReservationFormValues, reservationFormValues, spanText, updateReservationBody } from './transform';

const RESOURCE = 'amenities/reservations';
const ROUTES = { [RESOURCE]: { queryParams: ['search'] } };
const statusChoices = RESERVATION_STATUSES.map((id) => ({ id, name: `reservations.statuses.${id}` }));
const filters = [
  <TextInput key="search" source="search" label="resources.amenities/reservations.fields.search" resettable alwaysOn />,
  <SelectInput key="status" source="status" label="resources.amenities/reservations.fields.status" choices={statusChoices} alwaysOn />,
];
const scopes = (action: string, what = 'amenity_reservations') =>
  ['all', 'domain', 'descendants', 'own'].map((s) => `can_${action}_${s}_${what}`);
const USER_VIEW = ['can_view_users', 'can_view_descendant_users', 'can_view_all_users'];
const byName = (q: string) => (q ? { 'name@has': q } : {});
const STATUS_COLOR: Record<ReservationStatus, 'default' | 'primary' | 'success' | 'warning' | 'error'> = {
  inactive: 'warning',
  active: 'success',
  reserved: 'primary',
  canceled: 'default',
  expired: 'default',
};

export function StatusChip({ status }: { status: ReservationStatus }) {
  const translate = useTranslate();
  return (
    <Chip size="small" color={STATUS_COLOR[status]} label={translate(`reservations.statuses.${status}`)} data-testid="reservation-status" />
  );
}

export function ReservationList() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <ApiRoutes routes={ROUTES}>
      <ListPage
        resource={RESOURCE}
        title={translate('reservations.title')}
        sort={{ field: 'starts_at', order: 'DESC' }}
        filters={filters}
        canCreate={can('can_create_amenity_reservations')}
        canDelete={scopes('delete').some(can)}
        addRoute
        omit={['id']}
      >
        <EllipsisField source="id" />
        <EllipsisField source="amenity" sortable={false} render={(r) => (r as Reservation).amenity.name} />
        <EllipsisField source="user" sortable={false} render={(r) => (r as Reservation).user?.name ?? ''} />
        <DateTimeField date source="date" sortBy="starts_at" />
        <FunctionField source="time" sortable={false} render={(r: Reservation) => spanText(r.time_slots)} />
        <EllipsisField source="number_of_persons" sortable={false} />
        <FunctionField source="status" render={(r: Reservation) => <StatusChip status={r.status} />} />
        <DateTimeField source="created_at" />
      </ListPage>
    </ApiRoutes>
  );
}

const Grid = ({ children }: { children: ReactNode }) => (
  <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>{children}</Box>
);

/** The booking form: amenity, for whom, date and persons, then the slots of that day. */
function ReservationForm({ mode, record }: { mode: 'create' | 'edit'; record?: Reservation }) {
  const translate = useTranslate();
  const { can, profile } = useSessionData();
  const readOnly = mode === 'edit' && record?.can_edit === false;
  const values = useMemo(() => reservationFormValues(record), [record]);
  return (
    <SimpleForm record={values} toolbar={readOnly ? false : undefined} warnWhenUnsavedChanges>
      {readOnly && record ? (
        <Alert severity="info" variant="outlined" sx={{ mb: 2, width: '100%' }}>
          {translate('reservations.read_only', { status: translate(`reservations.statuses.${record.status}`) })}
        </Alert>
      ) : null}
      <FormSection title="reservations.sections.booking" />
      <Grid>
        <ReferenceInput source="amenity_id" reference="amenities" perPage={50} sort={{ field: 'name', order: 'ASC' }}>
          <AutocompleteInput
            label="resources.amenities/reservations.fields.amenity_id"
            filterToQuery={byName}
            validate={required}
            readOnly={mode === 'edit'}
          />
        </ReferenceInput>
        {mode === 'edit' || !USER_VIEW.some(can) ? (
          // The holder as the reservation names them (a resident books for themselves and may not list users).
          <TextInput
            source="holder"
            label="resources.amenities/reservations.fields.user"
            defaultValue={record?.user?.name ?? profile.name}
            readOnly
          />
        ) : (
          <ReferenceInput source="user_id" reference="users" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
            <AutocompleteInput
              label="resources.amenities/reservations.fields.user_id"
              filterToQuery={byName}
              helperText="reservations.user_hint"
            />
          </ReferenceInput>
        )}
        <DateInput source="date" label="resources.amenities/reservations.fields.date" validate={required} readOnly={readOnly} />
        <NumberInput
          source="number_of_persons"
          label="resources.amenities/reservations.fields.number_of_persons"
          min={1}
          validate={required}
          readOnly={readOnly}
        />
      </Grid>
      <FormSection title="reservations.sections.slots" />
      <SlotPicker source="time_slots" except={record?.id} readOnly={readOnly} />
    </SimpleForm>
  );
}

export function ReservationCreate() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <CreatePage
      resource={RESOURCE}
      allowed={can('can_create_amenity_reservations')}
      title={translate('reservations.create_title')}
      transform={(v: unknown) => createReservationBody(v as ReservationFormValues)}
    >
      <ReservationForm mode="create" />
    </CreatePage>
  );
}

function QrBlock({ r }: { r: Reservation }) {
  const translate = useTranslate();
  const { locale } = useFormat();
  const [src, setSrc] = useState<string | null>(null);
  const value = r.identifier?.value;
  useEffect(() => {
    let live = true;
    if (value)
      void QRCode.toString(value, { type: 'svg', margin: 2 }).then(
        (svg) => live && setSrc(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`),
      );
    return () => {
      live = false;
    };
  }, [value]);
  if (!value || !['reserved', 'active'].includes(r.status)) return null;
  const when = (iso: string) => formatDateTime(iso, locale);
  return (
    <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', mb: 2 }} data-testid="reservation-qr">
      <Box sx={{ width: 140, height: 140, bgcolor: '#fff', borderRadius: 1, lineHeight: 0 }}>
        {src ? <img src={src} alt={translate('reservations.sections.qr')} width={140} height={140} /> : null}
      </Box>
      <Box>
        <Typography variant="subtitle2">{translate('reservations.sections.qr')}</Typography>
        <Typography variant="body2" sx={{ fontFamily: 'monospace' }}>
          {value}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          {translate('reservations.qr_hint', { from: when(r.starts_at), to: when(r.ends_at) })}
        </Typography>
      </Box>
    </Box>
  );
}

function ReservationLogs({ r }: { r: Reservation }) {
  const translate = useTranslate();
  const { locale } = useFormat();
  const dp = useDataProvider<AtriumDataProvider>();
  const { can } = useSessionData();
  const allowed = scopes('view', 'amenity_reservation_logs').some(can);
  const { data } = useQuery({
    queryKey: ['reservation-logs', r.id, r.status],
    enabled: allowed,
    queryFn: async () => (await dp.request<{ data: ReservationLog[] }>(`/amenities/reservations/${r.id}/logs?size=100`)).data,
  });
  return (
    <Box sx={{ mt: 2 }} data-testid="reservation-logs">
      <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
        {translate('reservations.sections.logs')}
      </Typography>
      {!allowed ? (
        <Typography variant="body2" color="text.secondary">
          {translate('reservations.no_logs_permission')}
        </Typography>
      ) : !data?.length ? (
        <Typography variant="body2" color="text.secondary">
          {translate('reservations.no_logs')}
        </Typography>
      ) : (
        <List dense disablePadding>
          {data.map((l) => (
            <ListItem key={l.id} disableGutters>
              <ListItemText primary={l.translated_info} secondary={formatDateTime(l.created_at, locale)} />
            </ListItem>
          ))}
        </List>
      )}
    </Box>
  );
}

function CancelButton({ r }: { r: Reservation }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  if (!r.can_cancel) return null;
  const cancel = async () => {
    setOpen(false);
    try {
      await dp.request(`/amenities/reservations/${r.id}/cancel`, { method: 'POST', body: {} });
      notify('reservations.canceled', { type: 'success' });
      await queryClient.invalidateQueries({ queryKey: ['amenity-state'] });
      refresh();
    } catch (e) {
      notify(e instanceof Error ? e.message : 'ra.notification.http_error', { type: 'error' });
    }
  };
  return (
    <>
      <Button size="small" color="error" startIcon={<CancelIcon />} onClick={() => setOpen(true)}>
        {translate('reservations.cancel')}
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)}>
        <DialogTitle>{translate('reservations.cancel_title')}</DialogTitle>
        <DialogContent>{translate('reservations.cancel_confirm', { id: r.id })}</DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>{translate('ra.action.cancel')}</Button>
          <Button color="error" variant="contained" onClick={() => void cancel()}>
            {translate('reservations.cancel')}
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}

function ReservationTitle() {
  const translate = useTranslate();
  const r = useRecordContext<Reservation>();
  return <span>{r ? translate('reservations.edit_title', { id: r.id }) : translate('reservations.title')}</span>;
}

function EditBody() {
  const r = useRecordContext<Reservation>();
  if (!r) return null;
  return (
    <Box sx={{ p: 2 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1 }}>
        <StatusChip status={r.status} />
      </Box>
      <QrBlock r={r} />
      <ReservationForm mode="edit" record={r} />
      <ReservationLogs r={r} />
    </Box>
  );
}

function EditActions() {
  const r = useRecordContext<Reservation>();
  return <TopToolbar>{r ? <CancelButton r={r} /> : null}</TopToolbar>;
}

export function ReservationEdit() {
  return (
    <EditPage
      resource={RESOURCE}
      title={<ReservationTitle />}
      actions={<EditActions />}
      transform={(v: unknown) => updateReservationBody(v as ReservationFormValues)}
    >
      <EditBody />
    </EditPage>
  );
}
