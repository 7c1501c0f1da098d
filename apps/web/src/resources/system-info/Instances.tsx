import type { SystemInstance } from '@atrium/contract';
import { Card, CardContent, Chip, Stack, Typography } from '@mui/material';
import { FunctionField, TextField, useTranslate } from 'react-admin';
import { RecordsList } from '../../app/kit/RecordsList';

const L = (k: string) => `system_info.instances.${k}`;

/**
 * The Atrium instances sharing this database, as each last reported itself: the one that answered
 * first, marked. One line when Atrium runs alone.
 */
export function Instances({ instances, when }: { instances: SystemInstance[]; when: (iso: string) => string }) {
  const translate = useTranslate();
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h6" component="h2">
          {translate(L('title'))}
        </Typography>
        <Typography variant="body2" color="text.secondary" gutterBottom>
          {translate(L('hint'), { smart_count: instances.length })}
        </Typography>
        <RecordsList records={instances} resource="system-info/instances" sort={{ field: 'started_at', order: 'ASC' }} primary="name">
          <FunctionField
            source="name"
            label={L('name')}
            sortable={false}
            render={(i: SystemInstance) => (
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }} component="span">
                <span>{i.name}</span>
                {i.self ? <Chip size="small" color="primary" variant="outlined" label={translate(L('self'))} /> : null}
              </Stack>
            )}
          />
          <FunctionField source="host" label={L('process')} sortable={false} render={(i: SystemInstance) => `${i.host} · ${i.pid}`} />
          <TextField source="version" label={L('version')} sortable={false} />
          <FunctionField source="started_at" label={L('started_at')} sortable={false} render={(i: SystemInstance) => when(i.started_at)} />
          <FunctionField source="seen_at" label={L('seen_at')} sortable={false} render={(i: SystemInstance) => when(i.seen_at)} />
        </RecordsList>
      </CardContent>
    </Card>
  );
}
