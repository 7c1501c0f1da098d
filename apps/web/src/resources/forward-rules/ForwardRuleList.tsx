import { DAY_SECONDS, type ForwardGroup } from '@atrium/contract';
import { TextInput, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { GroupInput } from '../../app/kit/GroupPicker';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { DateTimeField, LocaleNumberField } from '../../app/kit/LocaleFields';
import { useSessionData } from '../../app/SessionContext';
import { daysText, hhmm } from '../time-rules/schedule';
import { useSummaryTexts } from '../time-rules/shared';
import { FORWARD_GROUP_WITH, FORWARD_RULE_ROUTES } from './routes';

const filters = [
  <TextInput key="search" source="search" label="resources.forward-rules.fields.search" resettable alwaysOn />,
  <GroupInput key="domain_id" source="domain_id" label="resources.forward-rules.fields.domain_id" />,
];

function ForwardRuleListView() {
  const translate = useTranslate();
  const texts = useSummaryTexts();
  const { can } = useSessionData();
  return (
    <ListPage
      title={translate('forward_rules.title')}
      sort={{ field: 'name', order: 'ASC' }}
      queryOptions={FORWARD_GROUP_WITH}
      filters={filters}
      canCreate={can('can_create_forward_rules')}
      canDelete={can('can_delete_forward_rules')}
      addRoute
      omit={['id', 'created_at']}
    >
      <EllipsisField source="id" />
      <EllipsisField source="name" />
      <EllipsisField
        source="domain_id"
        label="resources.forward-rules.fields.domain_id"
        sortable={false}
        render={(r) => (r as ForwardGroup).domain?.name}
      />
      <EllipsisField
        source="params.numbers"
        label="resources.forward-rules.fields.numbers"
        sortable={false}
        render={(r) => (r as ForwardGroup).params.numbers.join(', ')}
      />
      <LocaleNumberField source="params.timeout" label="resources.forward-rules.fields.timeout" sortable={false} />
      <EllipsisField
        source="params.days"
        label="forward_rules.when"
        sortable={false}
        render={(r) => {
          const p = (r as ForwardGroup).params;
          const allDay = p.period.from === 0 && p.period.to === DAY_SECONDS;
          return allDay ? daysText(p.days, texts) : `${daysText(p.days, texts)}, ${hhmm(p.period.from)}–${hhmm(p.period.to)}`;
        }}
      />
      <EllipsisField
        source="params.trunk_numbers"
        label="resources.forward-rules.fields.trunk_numbers"
        sortable={false}
        render={(r) => (r as ForwardGroup).params.trunk_numbers.join(', ')}
      />
      <DateTimeField source="created_at" />
    </ListPage>
  );
}

export function ForwardRuleList() {
  return (
    <ApiRoutes routes={FORWARD_RULE_ROUTES}>
      <ForwardRuleListView />
    </ApiRoutes>
  );
}
