import { BooleanField, Datagrid, Pagination, ReferenceManyField, TextField } from 'react-admin';
import { LocaleNumberField } from '../../app/kit/LocaleFields';

/** The users of a group (related list of the edit page), paged and sorted on the server. */
export function GroupUsers({ groupId }: { groupId: number }) {
  return (
    <ReferenceManyField
      reference="users"
      target="domains"
      record={{ id: groupId }}
      source="id"
      perPage={10}
      sort={{ field: 'name', order: 'ASC' }}
      pagination={<Pagination rowsPerPageOptions={[10, 25, 50]} />}
    >
      <Datagrid rowClick={(id) => `/users/${id}`} bulkActionButtons={false} empty={<span />}>
        <LocaleNumberField code source="id" />
        <TextField source="login" label="resources.users.fields.login" />
        <TextField source="name" label="resources.users.fields.name" />
        <TextField source="email" label="resources.users.fields.email" emptyText="—" />
        <BooleanField source="is_group_admin" label="resources.users.fields.is_group_admin" />
        <BooleanField source="activated" label="resources.users.fields.activated" />
      </Datagrid>
    </ReferenceManyField>
  );
}
