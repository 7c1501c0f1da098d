import type { DomainType } from '@atrium/contract';
import { maxLength, range, required } from '@atrium/contract';
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/Delete';
import { Button } from '@mui/material';
import { useState } from 'react';
import {
  FunctionField,
  NumberInput,
  ReferenceField,
  TextField,
  TextInput,
  useCreate,
  useDelete,
  useTranslate,
  useUpdate,
} from 'react-admin';
import { FormDialog } from '../../app/kit/FormDialog';
import { GROUPS_API, GroupInput } from '../../app/kit/GroupPicker';
import { ListPage, textFilter } from '../../app/kit/ListPage';
import { LocaleNumberField } from '../../app/kit/LocaleFields';
import { useActions } from '../../app/kit/useActions';
import { domainTypeName } from '../../app/seeded';
import { useAlert } from '../../app/useAlert';
import { domainTypeBody } from './transform';

type Editing = { mode: 'create' } | { mode: 'edit'; record: DomainType } | null;

/**
 * Domain types: a list whose rows open in a dialog, as small catalogues do. Everyone reads the
 * catalogue; only a user who may change project settings adds, edits or deletes (action-rules.ts).
 */
export function DomainTypeList() {
  const translate = useTranslate();
  const { can } = useActions();
  const alert = useAlert();
  const [editing, setEditing] = useState<Editing>(null);
  const [create] = useCreate();
  const [update] = useUpdate();
  const [remove] = useDelete();

  const save = async (values: Record<string, unknown>) => {
    const data = domainTypeBody(values);
    try {
      if (editing?.mode === 'edit') {
        await update(
          'domain-types',
          { id: editing.record.id, data, previousData: editing.record },
          { mutationMode: 'pessimistic', returnPromise: true },
        );
      } else await create('domain-types', { data }, { returnPromise: true });
      alert.done();
      setEditing(null);
    } catch (error) {
      alert.error(error);
      throw error;
    }
  };

  const removeRecord = async () => {
    if (editing?.mode !== 'edit') return;
    try {
      await remove(
        'domain-types',
        { id: editing.record.id, previousData: editing.record },
        { mutationMode: 'pessimistic', returnPromise: true },
      );
      alert.done();
      setEditing(null);
    } catch (error) {
      alert.error(error);
    }
  };

  return (
    <>
      <ListPage
        title={translate('domain_types.title')}
        sort={{ field: 'type', order: 'ASC' }}
        // The groups of each type the user may see, counted in the "groups of this type" column.
        queryOptions={{ meta: { with: ['domains'] } }}
        filters={[textFilter('name', 'has', 'resources.domain-types.fields.name', { alwaysOn: true })]}
        rowClick={
          can('domain_types.edit')
            ? (_id, _resource, record) => {
                setEditing({ mode: 'edit', record: record as DomainType });
                return false;
              }
            : false
        }
        extraActions={
          can('domain_types.create') ? (
            <Button size="small" startIcon={<AddIcon />} onClick={() => setEditing({ mode: 'create' })}>
              {translate('list.create')}
            </Button>
          ) : null
        }
      >
        <LocaleNumberField code source="type" />
        <FunctionField source="name" render={(t: DomainType) => domainTypeName(t, translate)} />
        <ReferenceField source="domain_id" reference={GROUPS_API} link={false} emptyText={translate('domain_types.project_wide')}>
          <TextField source="name" />
        </ReferenceField>
        <FunctionField
          source="domains"
          sortable={false}
          render={(r: DomainType) => translate('domain_types.in_use', { smart_count: r.domains?.length ?? 0 })}
        />
      </ListPage>
      {editing ? (
        <FormDialog
          open
          title={translate(editing.mode === 'edit' ? 'domain_types.edit' : 'domain_types.create')}
          record={editing.mode === 'edit' ? editing.record : { type: undefined, name: '', domain_id: null }}
          onApprove={save}
          onClose={() => setEditing(null)}
          width={600}
          actions={
            editing.mode === 'edit' && can('domain_types.delete')
              ? [{ label: translate('domain_types.delete'), icon: <DeleteIcon fontSize="small" />, onClick: removeRecord }]
              : undefined
          }
        >
          <NumberInput source="type" label="resources.domain-types.fields.type" validate={[required, range(1, 1_000_000)]} fullWidth />
          <TextInput source="name" label="resources.domain-types.fields.name" validate={[required, maxLength(64)]} fullWidth />
          <GroupInput source="domain_id" label="resources.domain-types.fields.domain_id" fullWidth />
        </FormDialog>
      ) : null}
    </>
  );
}
