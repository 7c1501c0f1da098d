import type { Identifier } from '@atrium/contract';
import AddIcon from '@mui/icons-material/Add';
import { Button } from '@mui/material';
import { FunctionField, TextInput, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { BulkDeleteWithConfirm, EllipsisField, ListPage } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';
import { RevokeRowButton } from '../identifiers/Revoke';
import { RevokedField, useCanGrant, useDateTimeText, useGuestRights, useIdentifierName } from './shared';
import { passesLeft } from './transform';

// The grantor's guests are identifiers (`GET /identifiers?onlyGuest=1`); search is a plain parameter too.
const ROUTES = { 'guest-access': { path: 'identifiers', queryParams: ['onlyGuest', 'search'] } };
const ONLY_GUESTS = { onlyGuest: '1' };

const filters = [<TextInput key="search" source="search" label="resources.guest-access.fields.search" resettable alwaysOn />];

/** The spec's edit route is `/guest-access/:id/edit`. */
const editPath = (id: unknown) => `/guest-access/${String(id)}/edit`;
/** A guest is revoked and deleted through guest access: a resident has no identifier permissions. */
const revokePath = (id: unknown) => `/guest-access/${encodeURIComponent(String(id))}/revoke`;

function GuestListView() {
  const translate = useTranslate();
  const identifierName = useIdentifierName();
  const dateText = useDateTimeText();
  const canGrant = useCanGrant();
  const rights = useGuestRights();
  const period = (i: Identifier) => {
    if (!i.period_restrict_active) return translate('guest_access.always');
    return [
      i.period_restrict_from ? translate('guest_access.period_from', { date: dateText(i.period_restrict_from) }) : '',
      i.period_restrict_to ? translate('guest_access.period_to', { date: dateText(i.period_restrict_to) }) : '',
    ]
      .filter(Boolean)
      .join(' ');
  };
  return (
    <ListPage
      title={translate('guest_access.title')}
      filter={ONLY_GUESTS}
      sort={{ field: 'created_at', order: 'DESC' }}
      filters={filters}
      canDelete={rights.remove}
      bulkActions={rights.remove ? <BulkDeleteWithConfirm path="guest-access" /> : undefined}
      rowClick={editPath}
      extraActions={
        canGrant ? (
          <Button component={Link} to="/guest-access/add" size="small" startIcon={<AddIcon />}>
            {translate('guest_access.grant')}
          </Button>
        ) : null
      }
    >
      <EllipsisField source="name" render={(r) => identifierName(r as Identifier)} />
      <FunctionField
        source="guest_type"
        render={(i: Identifier) => (i.guest_type ? translate(`guest_access.types.${i.guest_type}`, { _: i.guest_type }) : '—')}
      />
      <EllipsisField source="period" sortable={false} render={(r) => period(r as Identifier)} />
      <EllipsisField
        source="passes"
        sortable={false}
        render={(r) => {
          const i = r as Identifier;
          const left = passesLeft(i);
          return left === null
            ? translate('guest_access.unlimited')
            : translate('guest_access.passes_used', { used: i.passes_restrict_passes_count, max: i.passes_restrict_max_count, left });
        }}
      />
      <RevokedField source="is_revoked" />
      <DateTimeField source="created_at" />
      <RevokeRowButton label=" " sortable={false} path={revokePath} allowed={rights.revoke} />
    </ListPage>
  );
}

/** `/guest-access`: the guests I granted, and the button to grant one more. */
export function GuestList() {
  return (
    <ApiRoutes routes={ROUTES}>
      <GuestListView />
    </ApiRoutes>
  );
}
