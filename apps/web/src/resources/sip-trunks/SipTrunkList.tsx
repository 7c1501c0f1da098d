import { ChipField, ReferenceArrayField, SingleFieldList, TextInput, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { GROUPS_API } from '../../app/kit/GroupPicker';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';
import { useSessionData } from '../../app/SessionContext';
import { SIP_TRUNK_ROUTES, trunkScopes } from './routes';

const filters = [<TextInput key="search" source="search" label="resources.sip-trunks.fields.search" resettable alwaysOn />];

function SipTrunkListView() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <ListPage
      title={translate('sip_trunks.title')}
      sort={{ field: 'name', order: 'ASC' }}
      filters={filters}
      canCreate={can('can_create_sip_trunks')}
      canDelete={trunkScopes('delete').some(can)}
      addRoute
      omit={['id', 'created_at']}
    >
      <EllipsisField source="id" />
      <EllipsisField source="name" />
      <EllipsisField source="outgoing_number" />
      <EllipsisField source="termination_uri" />
      <EllipsisField source="login" />
      <ReferenceArrayField source="domains" reference={GROUPS_API} sortable={false}>
        <SingleFieldList linkType={false}>
          <ChipField source="name" size="small" />
        </SingleFieldList>
      </ReferenceArrayField>
      <DateTimeField source="created_at" />
    </ListPage>
  );
}

export function SipTrunkList() {
  return (
    <ApiRoutes routes={SIP_TRUNK_ROUTES}>
      <SipTrunkListView />
    </ApiRoutes>
  );
}
