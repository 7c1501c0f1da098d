import type { Role, RoleBulkDeleteResult } from '@atrium/contract';
import { BooleanField, DateField, FunctionField, NumberField, TextField, useTranslate } from 'react-admin';
import { BulkDeleteWithConfirm, ListPage, textFilter } from '../../app/kit/ListPage';
import { useActions } from '../../app/kit/useActions';
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
      bulkActions={
        <BulkDeleteWithConfirm
          flags={GENTLY}
          describe={(answer, t) => describeDependencies((answer as unknown as RoleBulkDeleteResult).dependencies ?? [], t)}
        />
      }
    >
      <NumberField source="id" />
      <TextField source="name" />
      <TextField source="description" emptyText="—" />
      <FunctionField
        source="permissions"
        sortable={false}
        render={(r: Role) => translate('roles.permissions_count', { smart_count: r.permissions.length })}
      />
      <NumberField source="users_count" sortable={false} emptyText="—" />
      <BooleanField source="is_builtin" />
      <FunctionField source="created_by_user" sortable={false} render={(r: Role) => r.created_by_user?.name ?? '—'} />
      <DateField source="updated_at" showTime />
    </ListPage>
  );
}
