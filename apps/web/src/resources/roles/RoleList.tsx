import type { Role, RoleBulkDeleteResult } from '@atrium/contract';
import { BooleanField, FunctionField, TextField, useTranslate } from 'react-admin';
import { PROSE_CELL } from '../../app/kit/ListBody';
import { BulkDeleteWithConfirm, ListPage, textFilter } from '../../app/kit/ListPage';
import { DateTimeField, LocaleNumberField } from '../../app/kit/LocaleFields';
import { useActions } from '../../app/kit/useActions';
import { roleName } from '../../app/seeded';
import { describeDependencies } from './transform';

const GENTLY = [{ name: 'gently', label: 'roles.gently', defaultValue: true }] as const;

export function RoleList() {
  const translate = useTranslate();
  const { can } = useActions();
  return (
    <ListPage
      title={translate('roles.title')}
      sort={{ field: 'name', order: 'ASC' }}
      queryOptions={{ meta: { with: ['users_count'] } }}
      filters={[
        textFilter('name', 'has', 'resources.roles.fields.name', { alwaysOn: true }),
        textFilter('description', 'has', 'resources.roles.fields.description'),
      ]}
      canCreate={can('roles.create')}
      canDelete={can('roles.bulk_delete')}
      addRoute
      // A role is told by its name, as every other list's records are; its number is one click away.
      omit={['id']}
      bulkActions={
        <BulkDeleteWithConfirm
          flags={GENTLY}
          describe={(answer, t) => describeDependencies((answer as unknown as RoleBulkDeleteResult).dependencies ?? [], t)}
        />
      }
    >
      <LocaleNumberField code source="id" />
      <FunctionField source="name" render={(r: Role) => roleName(r, translate)} />
      <TextField source="description" emptyText="—" cellClassName={PROSE_CELL} />
      <FunctionField
        source="permissions"
        sortable={false}
        render={(r: Role) => translate('roles.permissions_count', { smart_count: r.permissions.length })}
      />
      <LocaleNumberField source="users_count" sortable={false} emptyText="—" />
      <BooleanField source="is_builtin" />
      <FunctionField source="created_by_user" sortable={false} render={(r: Role) => r.created_by_user?.name ?? '—'} />
      <DateTimeField source="updated_at" />
    </ListPage>
  );
}
