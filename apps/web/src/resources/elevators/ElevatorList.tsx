import type { Elevator } from '@atrium/contract';
import { FunctionField, ReferenceField, TextField, TextInput, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { GROUPS_API } from '../../app/kit/GroupPicker';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';
import { useSessionData } from '../../app/SessionContext';
import { ELEVATOR_ROUTES } from './routes';

const filters = [<TextInput key="search" source="search" label="resources.elevators.fields.search" resettable alwaysOn />];

/** The distinct floors an elevator's controllers serve. */
const floorCount = (e: Elevator) => new Set(e.controllers.flatMap((c) => c.floor_map.map((f) => f.floor))).size;

function ElevatorListView() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <ListPage
      title={translate('elevators.title')}
      sort={{ field: 'name', order: 'ASC' }}
      filters={filters}
      canCreate={can('can_create_elevators')}
      canDelete={can('can_delete_elevators')}
      addRoute
      omit={['id', 'created_at']}
    >
      <EllipsisField source="id" />
      <EllipsisField source="name" />
      <ReferenceField source="domain_id" reference={GROUPS_API} link={false} emptyText="—">
        <TextField source="name" />
      </ReferenceField>
      <FunctionField
        source="controllers"
        sortable={false}
        render={(e: Elevator) =>
          e.controllers.map((c) => c.device_name ?? `#${c.device_id}`).join(', ') || translate('elevators.no_controllers')
        }
      />
      <FunctionField
        source="floors"
        sortable={false}
        render={(e: Elevator) => translate('elevators.floors_count', { smart_count: floorCount(e) })}
      />
      <DateTimeField source="created_at" />
    </ListPage>
  );
}

export function ElevatorList() {
  return (
    <ApiRoutes routes={ELEVATOR_ROUTES}>
      <ElevatorListView />
    </ApiRoutes>
  );
}
