import { ReferenceField, TextInput, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { GROUPS_API, GroupInput } from '../../app/kit/GroupPicker';
import { BulkDeleteWithConfirm, EllipsisField, ListPage, textFilter } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';
import { useSessionData } from '../../app/SessionContext';
import { scheduleSummary } from './schedule';
import { OpenNowField, SCHEDULE_ROUTES, usedByRulesWarning, useSummaryTexts } from './shared';

const filters = [
  <TextInput key="search" source="search" label="resources.schedules.fields.search" resettable alwaysOn />,
  textFilter('time_zone', 'begins_with', 'resources.schedules.fields.time_zone'),
  <GroupInput key="domain_id" source="domain_id" label="resources.schedules.fields.domain_id" />,
];

function TimeRuleListView() {
  const translate = useTranslate();
  const { can } = useSessionData();
  const texts = useSummaryTexts();
  return (
    <ListPage
      title={translate('schedules.title')}
      sort={{ field: 'name', order: 'ASC' }}
      filters={filters}
      canCreate={can('can_create_time_rules')}
      canDelete={can('can_delete_time_rules')}
      bulkActions={<BulkDeleteWithConfirm warning={usedByRulesWarning} />}
      addRoute
      omit={['id', 'updated_at']}
    >
      <EllipsisField source="id" />
      <EllipsisField source="name" />
      <EllipsisField source="time_zone" />
      <EllipsisField source="summary" sortable={false} render={(r) => scheduleSummary(r, texts)} />
      <OpenNowField source="open_now" sortable={false} />
      <ReferenceField source="domain_id" reference={GROUPS_API} link={false} sortable={false} emptyText="—">
        <EllipsisField source="name" />
      </ReferenceField>
      <DateTimeField source="updated_at" />
    </ListPage>
  );
}

export function TimeRuleList() {
  return (
    <ApiRoutes routes={SCHEDULE_ROUTES}>
      <TimeRuleListView />
    </ApiRoutes>
  );
}
