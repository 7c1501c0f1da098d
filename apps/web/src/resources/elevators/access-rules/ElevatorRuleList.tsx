import type { ElevatorRule } from '@atrium/contract';
import { FunctionField, TextInput, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../../app/kit/apiRoutes';
import { EllipsisField, ListPage } from '../../../app/kit/ListPage';
import { DateTimeField } from '../../../app/kit/LocaleFields';
import { useSessionData } from '../../../app/SessionContext';
import { ELEVATOR_ROUTES } from '../routes';

const filters = [<TextInput key="search" source="search" label="resources.elevators/access-rules.fields.search" resettable alwaysOn />];

function ElevatorRuleListView() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <ListPage
      title={translate('elevator_rules.title')}
      sort={{ field: 'name', order: 'ASC' }}
      filters={filters}
      canCreate={can('can_create_elevator_access_rules')}
      canDelete={can('can_delete_elevator_access_rules')}
      addRoute
      omit={['id', 'description']}
    >
      <EllipsisField source="id" />
      <EllipsisField source="name" />
      <EllipsisField source="description" sortable={false} />
      <FunctionField
        source="users"
        sortable={false}
        render={(r: ElevatorRule) => translate('elevator_rules.users_count', { smart_count: r.users.length })}
      />
      <FunctionField
        source="elevators"
        sortable={false}
        render={(r: ElevatorRule) =>
          translate('elevator_rules.elevators_count', {
            smart_count: r.elevators.length,
            floors: r.elevators.reduce((n, e) => n + e.floors.length, 0),
          })
        }
      />
      <DateTimeField source="updated_at" sortable={false} />
    </ListPage>
  );
}

export function ElevatorRuleList() {
  return (
    <ApiRoutes routes={ELEVATOR_ROUTES}>
      <ElevatorRuleListView />
    </ApiRoutes>
  );
}
