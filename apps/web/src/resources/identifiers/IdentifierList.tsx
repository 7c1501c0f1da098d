import type { Identifier } from '@atrium/contract';
import { Chip } from '@mui/material';
import { FunctionField, NullableBooleanInput, SelectInput, TextInput, useTranslate } from 'react-admin';
import { displayValue, useIdentifierFormat } from '../../app/identifier-value';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { BulkDeleteWithConfirm, EllipsisField, ListPage } from '../../app/kit/ListPage';
import { useIdentifierName } from '../guest-access/shared';
import { IdentifierExportButton } from './IdentifierExport';
import { IdentifierImportButton } from './IdentifierImport';
import { BulkRevokeButton, RevokeRowButton } from './Revoke';
import { RevokedField, typeChoices, useDateTimeText, useIdentifierRights } from './shared';

// Name, number or owner contains the text: a plain `search` parameter, not a filter rule.
const ROUTES = { identifiers: { queryParams: ['search'] } };

const filters = [
  <TextInput key="search" source="search" label="resources.identifiers.fields.search" resettable alwaysOn />,
  <SelectInput key="type" source="type" label="resources.identifiers.fields.type" choices={typeChoices} />,
  <NullableBooleanInput key="is_active" source="is_active" label="resources.identifiers.fields.is_active" />,
  <NullableBooleanInput key="is_revoked" source="is_revoked" label="resources.identifiers.fields.is_revoked" />,
];

/** A row the caller may revoke or delete can be picked for the bulk actions. */
const selectable = (r: { can_delete?: unknown; can_edit?: unknown }) => r.can_delete !== false || r.can_edit !== false;

function IdentifierListView() {
  const translate = useTranslate();
  const identifierName = useIdentifierName();
  const format = useIdentifierFormat();
  const dateText = useDateTimeText();
  const rights = useIdentifierRights();
  const period = (i: Identifier) => {
    if (!i.period_restrict_active) return translate('identifiers.always');
    return [
      i.period_restrict_from ? translate('identifiers.period_from', { date: dateText(i.period_restrict_from) }) : '',
      i.period_restrict_to ? translate('identifiers.period_to', { date: dateText(i.period_restrict_to) }) : '',
    ]
      .filter(Boolean)
      .join(' ');
  };
  return (
    <ListPage
      title={translate('identifiers.title')}
      sort={{ field: 'name', order: 'ASC' }}
      filters={filters}
      canCreate={rights.create}
      canDelete={rights.delete || rights.edit}
      isRowSelectable={selectable}
      bulkActions={
        <>
          {rights.edit ? <BulkRevokeButton /> : null}
          {rights.delete ? <BulkDeleteWithConfirm /> : null}
        </>
      }
      extraActions={
        <>
          {rights.import ? <IdentifierImportButton canExport={rights.export} /> : null}
          {rights.export ? <IdentifierExportButton /> : null}
        </>
      }
      addRoute
      omit={['id']}
      // Passes and validity wait for a wide desk (and the record): a guest's long QR value and the
      // status chips keep the columns that tell a card and whether it opens.
      secondary={['passes', 'period']}
    >
      <EllipsisField source="id" />
      <EllipsisField source="name" render={(r) => identifierName(r as Identifier)} />
      <FunctionField source="type" render={(i: Identifier) => translate(`identifiers.types.${i.type}`, { _: i.type })} />
      {/* The number is what a card is told by (read off the card, typed at a desk): never cut. */}
      <FunctionField source="value" render={(i: Identifier) => displayValue(i.type, i.value, format)} />
      <EllipsisField source="owner_id" label="resources.identifiers.fields.owner" render={(r) => (r as Identifier).owner?.name} />
      <FunctionField
        source="is_active"
        render={(i: Identifier) => (
          <Chip
            size="small"
            color={i.is_active ? 'success' : 'default'}
            variant={i.is_active ? 'filled' : 'outlined'}
            label={translate(i.is_active ? 'identifiers.active' : 'identifiers.inactive')}
          />
        )}
      />
      <RevokedField source="is_revoked" />
      <EllipsisField
        source="passes"
        sortable={false}
        render={(r) => {
          const i = r as Identifier;
          return i.passes_restrict_active
            ? translate('identifiers.passes_used', { used: i.passes_restrict_passes_count, max: i.passes_restrict_max_count })
            : translate('identifiers.unlimited');
        }}
      />
      <EllipsisField source="period" sortable={false} render={(r) => period(r as Identifier)} />
      <RevokeRowButton label=" " sortable={false} />
    </ListPage>
  );
}

export function IdentifierList() {
  return (
    <ApiRoutes routes={ROUTES}>
      <IdentifierListView />
    </ApiRoutes>
  );
}
