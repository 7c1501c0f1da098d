import type { SipNumber } from '@atrium/contract';
import { BooleanField, FunctionField, NullableBooleanInput, SelectInput, TextInput, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { GroupInput } from '../../app/kit/GroupPicker';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';
import { useSessionData } from '../../app/SessionContext';
import { SIP_NUMBER_WITH, VIRTUAL_NUMBER_ROUTES } from './routes';

const modeChoices = ['disabled', 'manual', 'picked'].map((id) => ({ id, name: `virtual_numbers.forward_modes.${id}` }));
const filters = [
  <TextInput key="search" source="search" label="resources.virtual-numbers.fields.search" resettable alwaysOn />,
  <GroupInput key="domain_id" source="domain_id" label="resources.virtual-numbers.fields.domain_id" />,
  <SelectInput key="forward_mode" source="forward_mode" label="resources.virtual-numbers.fields.forward_mode" choices={modeChoices} />,
  <NullableBooleanInput key="is_active" source="is_active" label="resources.virtual-numbers.fields.is_active" />,
];

function VirtualNumberListView() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <ListPage
      title={translate('virtual_numbers.title')}
      sort={{ field: 'number', order: 'ASC' }}
      queryOptions={SIP_NUMBER_WITH}
      filters={filters}
      canCreate={can('can_create_virtual_numbers')}
      canDelete={can('can_delete_virtual_numbers')}
      addRoute
      omit={['id', 'purpose', 'created_at']}
    >
      <EllipsisField source="id" />
      <EllipsisField source="number" />
      <EllipsisField source="name" />
      <EllipsisField source="owner_info" sortable={false} />
      <EllipsisField
        source="domain_id"
        label="resources.virtual-numbers.fields.domain_id"
        sortable={false}
        render={(r) => (r as SipNumber).domain?.name}
      />
      <FunctionField
        source="forward_mode"
        sortable={false}
        render={(r: SipNumber) =>
          r.forward_mode === 'picked' && r.forward_group
            ? `${translate('virtual_numbers.forward_modes.picked')}: ${r.forward_group.name}`
            : translate(`virtual_numbers.forward_modes.${r.forward_mode}`)
        }
      />
      <FunctionField
        source="purpose"
        sortable={false}
        render={(r: SipNumber) => (r.purpose ? translate(`virtual_numbers.purposes.${r.purpose}`) : '—')}
      />
      <BooleanField source="is_active" sortable={false} />
      <BooleanField source="is_reserved" sortable={false} />
      <DateTimeField source="created_at" />
    </ListPage>
  );
}

export function VirtualNumberList() {
  return (
    <ApiRoutes routes={VIRTUAL_NUMBER_ROUTES}>
      <VirtualNumberListView />
    </ApiRoutes>
  );
}
