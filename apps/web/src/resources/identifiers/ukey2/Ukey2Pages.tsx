import type { Identifier } from '@atrium/contract';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  CircularProgress,
  Table,
  TableBody,
  TableCell,
  TableRow,
  Typography,
} from '@mui/material';
import type { ReactNode } from 'react';
import { FunctionField, TextInput, Title, useGetOne, useTranslate } from 'react-admin';
import { Link, useParams } from 'react-router-dom';
import { displayValue, type IdentifierFormat, useIdentifierFormat } from '../../../app/identifier-value';
import { ApiRoutes } from '../../../app/kit/apiRoutes';
import { EllipsisField, ListPage } from '../../../app/kit/ListPage';
import { RecordError } from '../../../app/kit/RecordPage';
import { RevokedField, useDateTimeText } from '../shared';

// UKEY2 keys (spec entities §2: /ukey2 and /ukey2/:id/edit, view only). The server answers them as
// identifiers of type ukey2 (GET /ukey2, GET /ukey2/{id}, can_view_ukey2); they are issued and revoked
// with the identifiers, so nothing here changes them.

// Name, key or owner contains the text: a plain `search` parameter, as the identifiers list sends it.
const ROUTES = { ukey2: { queryParams: ['search'] } };

const filters = [<TextInput key="search" source="search" label="resources.ukey2.fields.search" resettable alwaysOn />];

/** "from … to …", or always. */
function usePeriodText(): (i: Identifier) => string {
  const translate = useTranslate();
  const dateText = useDateTimeText();
  return (i) => {
    if (!i.period_restrict_active) return translate('identifiers.always');
    return [
      i.period_restrict_from ? translate('identifiers.period_from', { date: dateText(i.period_restrict_from) }) : '',
      i.period_restrict_to ? translate('identifiers.period_to', { date: dateText(i.period_restrict_to) }) : '',
    ]
      .filter(Boolean)
      .join(' ');
  };
}

function StateChip({ active }: { active: boolean }) {
  const translate = useTranslate();
  return (
    <Chip
      size="small"
      color={active ? 'success' : 'default'}
      variant={active ? 'filled' : 'outlined'}
      label={translate(active ? 'identifiers.active' : 'identifiers.inactive')}
    />
  );
}

function Ukey2ListView() {
  const translate = useTranslate();
  const format = useIdentifierFormat();
  const period = usePeriodText();
  return (
    <ListPage title={translate('ukey2.title')} sort={{ field: 'name', order: 'ASC' }} filters={filters} canDelete={false}>
      <EllipsisField source="name" />
      <EllipsisField source="value" render={(r) => displayValue(r.type, r.value, format)} />
      <EllipsisField
        source="owner_id"
        label="resources.ukey2.fields.owner"
        render={(r) => (r as Identifier).owner?.name ?? translate('ukey2.nobody')}
      />
      <FunctionField source="is_active" render={(i: Identifier) => <StateChip active={i.is_active} />} />
      <RevokedField source="is_revoked" label="resources.ukey2.fields.is_revoked" />
      <EllipsisField source="period" sortable={false} render={(r) => period(r as Identifier)} />
    </ListPage>
  );
}

export function Ukey2List() {
  return (
    <ApiRoutes routes={ROUTES}>
      <Ukey2ListView />
    </ApiRoutes>
  );
}

/** One UKEY2 key, read only (the spec's /ukey2/:id/edit). */
export function Ukey2View() {
  const { id } = useParams();
  const translate = useTranslate();
  const format = useIdentifierFormat();
  const { data, isPending, error } = useGetOne<Identifier>('ukey2', { id: Number(id) }, { enabled: Number.isInteger(Number(id)) });
  if (isPending && !error) return <CircularProgress aria-label={translate('ra.page.loading')} sx={{ m: 4 }} />;
  if (error || !data) return <RecordError />;
  return <Ukey2Details data={data} format={format} />;
}

/** What a UKEY2 key is: its fields as a two-column table, with the note that it is changed elsewhere. */
export function Ukey2Details({ data, format }: { data: Identifier; format: IdentifierFormat }) {
  const translate = useTranslate();
  const dateText = useDateTimeText();
  const period = usePeriodText();
  const rows: [string, ReactNode][] = [
    ['name', data.name],
    ['value', <code key="v">{displayValue(data.type, data.value, format)}</code>],
    ['owner', data.owner ? `${data.owner.name} (${data.owner.login})` : translate('ukey2.nobody')],
    ['is_active', <StateChip key="s" active={data.is_active} />],
    ['period', period(data)],
    [
      'is_revoked',
      data.is_revoked ? translate('identifiers.revoked_at', { date: dateText(data.revoked_at) }) : translate('identifiers.not_revoked'),
    ],
    ['access_rules', translate('ukey2.rules', { smart_count: data.access_rules.length })],
    ['description', data.description || translate('ukey2.none')],
    ['created_at', dateText(data.created_at)],
    ['updated_at', dateText(data.updated_at)],
  ];
  return (
    <Box sx={{ p: 2, maxWidth: 760 }}>
      <Title title={translate('ukey2.key_title', { name: data.name })} />
      <Typography variant="h5" component="h2" sx={{ mb: 2 }}>
        {translate('ukey2.key_title', { name: data.name })}
      </Typography>
      <Alert severity="info" variant="outlined" sx={{ mb: 2 }}>
        {translate('ukey2.view_only')}
      </Alert>
      <Card variant="outlined">
        <CardContent>
          <Table size="small" aria-label={translate('ukey2.key_title', { name: data.name })}>
            <TableBody>
              {rows.map(([field, value]) => (
                <TableRow key={field}>
                  <TableCell component="th" scope="row" sx={{ width: 200, color: 'text.secondary' }}>
                    {translate(`resources.ukey2.fields.${field}`)}
                  </TableCell>
                  <TableCell>{value}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </CardContent>
      </Card>
      <Button component={Link} to="/ukey2" startIcon={<ArrowBackIcon />} sx={{ mt: 2 }}>
        {translate('kit.back_to_list')}
      </Button>
    </Box>
  );
}
