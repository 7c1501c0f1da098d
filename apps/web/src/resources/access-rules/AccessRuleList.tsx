import type { AccessRule } from '@atrium/contract';
import { ChipField, FunctionField, NullableBooleanInput, ReferenceArrayField, SingleFieldList, TextInput, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';
import { useSessionData } from '../../app/SessionContext';
import { ACCESS_RULE_ROUTES } from './routes';
import { FlagsField, ProhibitionChip } from './shared';

const filters = [
  <TextInput key="search" source="search" label="resources.access-rules.fields.search" resettable alwaysOn />,
  <NullableBooleanInput key="prohibition" source="prohibition" label="resources.access-rules.fields.prohibition" />,
  <NullableBooleanInput key="is_shareable" source="is_shareable" label="resources.access-rules.fields.is_shareable" />,
  <NullableBooleanInput key="available_for_guest" source="available_for_guest" label="resources.access-rules.fields.available_for_guest" />,
];

function AccessRuleListView() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <ListPage
      title={translate('access_rules.title')}
      sort={{ field: 'name', order: 'ASC' }}
      filters={filters}
      canCreate={can('can_create_access_rules')}
      canDelete={can('can_delete_access_rules')}
      addRoute
      omit={['id', 'updated_at']}
    >
      <EllipsisField source="id" />
      <EllipsisField source="name" />
      <ProhibitionChip source="prohibition" />
      <FunctionField
        source="devices"
        sortable={false}
        render={(r: AccessRule) => translate('access_rules.devices_count', { smart_count: r.devices.length })}
      />
      <FunctionField
        source="time_rules"
        sortable={false}
        render={(r: AccessRule) =>
          r.time_rules.length ? (
            <ReferenceArrayField source="time_rules" reference="schedules">
              <SingleFieldList linkType="edit">
                <ChipField source="name" size="small" />
              </SingleFieldList>
            </ReferenceArrayField>
          ) : (
            translate('access_rules.any_time')
          )
        }
      />
      <FlagsField source="flags" sortable={false} />
      <DateTimeField source="updated_at" />
    </ListPage>
  );
}

export function AccessRuleList() {
  return (
    <ApiRoutes routes={ACCESS_RULE_ROUTES}>
      <AccessRuleListView />
    </ApiRoutes>
  );
}
