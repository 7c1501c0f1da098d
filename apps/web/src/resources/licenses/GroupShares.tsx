import { type DomainLicenseInfo, type Group, LICENSE_FEATURES, type LicenseFeature, type LicenseInfo } from '@atrium/contract';
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/Delete';
import {
  Alert,
  Autocomplete,
  Box,
  Button,
  Card,
  CardContent,
  FormControlLabel,
  IconButton,
  MenuItem,
  Stack,
  Switch,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useDataProvider, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { errorMessageOf, errorText } from '../../app/errors';
import { useAlert } from '../../app/useAlert';
import { countText } from './format';
import { projectCount, type ShareRow, shareInfo, shareProblems, shareRows } from './shares';

const L = (k: string) => `licenses.shares.${k}`;
const FEATURES = Object.keys(LICENSE_FEATURES) as LicenseFeature[];

type GroupOption = { id: number; name: string };
/** A line with a key of its own, so React keeps each line's inputs as lines come and go. */
type KeyedRow = ShareRow & { uid: number };
let nextUid = 0;
const keyed = (r: ShareRow): KeyedRow => ({ ...r, uid: ++nextUid });

/** The problems the server found (licence consistency): each detail's phrase, translated. */
function issueTexts(error: unknown, translate: (k: string, o?: Record<string, unknown>) => string): string[] {
  const body = (error as { body?: { details?: unknown } } | null)?.body;
  const details = Array.isArray(body?.details) ? body.details : [];
  return details
    .map((d) => (d && typeof d === 'object' ? (d as { message?: unknown; type?: unknown }) : {}))
    .filter((d) => typeof d.message === 'string')
    .map((d) => {
      const text = translate(`errors.http.${String(d.message).toLowerCase()}`, { _: String(d.message) });
      return typeof d.type === 'string' ? `${translate(`licenses.feature_names.${d.type}`, { _: d.type })}: ${text}` : text;
    });
}

/**
 * A group's share of the licences (issue 14): which features the group may use, how many of each
 * (within its parent's share, or the project's licence at the top), and for which period. The
 * server checks the share against the parent, the siblings, the children and the project.
 */
export function GroupShares({ features, editable }: { features: LicenseInfo; editable: boolean }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const [search, setSearch] = useState('');
  const [group, setGroup] = useState<GroupOption | null>(null);
  const [enabled, setEnabled] = useState(false);
  const [rows, setRows] = useState<KeyedRow[]>([]);
  const [issues, setIssues] = useState<string[]>([]);

  const options = useQuery({
    queryKey: ['licenses', 'share-groups', search],
    queryFn: async () =>
      (
        await dp.getList<Group>('domains', {
          pagination: { page: 1, perPage: 20 },
          sort: { field: 'name', order: 'ASC' },
          filter: search ? { 'name@has': search } : {},
        })
      ).data.map((g) => ({ id: g.id, name: g.name })),
  });
  const current = useQuery({
    queryKey: ['licenses', 'share', group?.id],
    enabled: group !== null,
    queryFn: async () => (await dp.request<{ data: Group }>(`/domains/${group?.id}`)).data,
  });
  const info: DomainLicenseInfo | null | undefined = current.data?.license_info;
  useEffect(() => {
    if (!info) return;
    setEnabled(info.is_enabled);
    setRows(shareRows(info).map(keyed));
    setIssues([]);
  }, [info]);

  const save = useMutation({
    mutationFn: () =>
      dp.request(`/domains/${group?.id}`, { method: 'PATCH', body: { license_info: shareInfo(info as DomainLicenseInfo, enabled, rows) } }),
    onSuccess: () => {
      setIssues([]);
      alert.success(L('saved'));
      void queryClient.invalidateQueries({ queryKey: ['licenses', 'share'] });
    },
    onError: (e) => {
      setIssues(issueTexts(e, translate));
      alert.error(e);
    },
  });

  const problems = shareProblems(rows);
  const problemOf = (i: number) => problems.find((p) => p.index === i)?.problem;
  const change = (i: number, patch: Partial<ShareRow>) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const unused = FEATURES.find((f) => !rows.some((r) => r.type === f));
  const readOnly = !editable;

  return (
    <Card variant="outlined" sx={{ mt: 2 }} data-testid="group-shares">
      <CardContent>
        <Typography variant="h6" component="h2">
          {translate(L('title'))}
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          {translate(L('hint'))}
        </Typography>
        <Autocomplete
          sx={{ maxWidth: 420, mb: 2 }}
          options={options.data ?? []}
          value={group}
          loading={options.isFetching}
          getOptionLabel={(o) => o.name}
          isOptionEqualToValue={(a, b) => a.id === b.id}
          filterOptions={(x) => x}
          onInputChange={(_e, v, reason) => reason === 'input' && setSearch(v)}
          onChange={(_e, v) => setGroup(v)}
          renderInput={(params) => <TextField {...params} label={translate(L('group'))} />}
        />
        {current.error ? <Alert severity="error">{errorText(current.error, translate)}</Alert> : null}
        {group && current.data && info === null ? <Alert severity="info">{translate(L('hidden'))}</Alert> : null}
        {group && info ? (
          <>
            <FormControlLabel
              control={<Switch checked={enabled} onChange={(e) => setEnabled(e.target.checked)} disabled={readOnly} />}
              label={translate(L('enabled'))}
            />
            <Table size="small" sx={{ mt: 1 }}>
              <TableHead>
                <TableRow>
                  <TableCell>{translate(L('feature'))}</TableCell>
                  <TableCell>{translate(L('active'))}</TableCell>
                  <TableCell>{translate(L('quantity'))}</TableCell>
                  <TableCell>{translate(L('project_count'))}</TableCell>
                  <TableCell>{translate(L('from'))}</TableCell>
                  <TableCell>{translate(L('to'))}</TableCell>
                  <TableCell />
                </TableRow>
              </TableHead>
              <TableBody>
                {rows.map((r, i) => {
                  const total = projectCount(features, r.type);
                  const problem = problemOf(i);
                  return (
                    <TableRow key={r.uid} data-testid={`share-${r.type || i}`}>
                      <TableCell sx={{ minWidth: 200 }}>
                        <TextField
                          select
                          size="small"
                          fullWidth
                          value={r.type}
                          onChange={(e) => change(i, { type: e.target.value })}
                          disabled={readOnly}
                          error={problem === 'type_required' || problem === 'type_twice'}
                          helperText={
                            problem === 'type_required' || problem === 'type_twice' ? translate(L(`problems.${problem}`)) : undefined
                          }
                          slotProps={{ htmlInput: { 'aria-label': translate(L('feature')) } }}
                        >
                          {FEATURES.map((f) => (
                            <MenuItem key={f} value={f}>
                              {translate(`licenses.feature_names.${f}`)}
                            </MenuItem>
                          ))}
                        </TextField>
                      </TableCell>
                      <TableCell>
                        <Switch
                          checked={r.is_active}
                          onChange={(e) => change(i, { is_active: e.target.checked })}
                          disabled={readOnly}
                          slotProps={{ input: { 'aria-label': translate(L('active')) } }}
                        />
                      </TableCell>
                      <TableCell sx={{ minWidth: 120 }}>
                        <TextField
                          size="small"
                          type="number"
                          sx={{ width: 110 }}
                          value={r.quantity ?? ''}
                          placeholder="∞"
                          onChange={(e) => change(i, { quantity: e.target.value === '' ? null : Number(e.target.value) })}
                          disabled={readOnly}
                          error={problem === 'quantity'}
                          helperText={problem === 'quantity' ? translate(L('problems.quantity')) : undefined}
                          slotProps={{ htmlInput: { min: 0, 'aria-label': translate(L('quantity')) } }}
                        />
                      </TableCell>
                      <TableCell data-testid={`share-project-${r.type}`}>{total === undefined ? '—' : countText(total)}</TableCell>
                      <TableCell>
                        <TextField
                          size="small"
                          type="date"
                          value={r.from}
                          onChange={(e) => change(i, { from: e.target.value })}
                          disabled={readOnly}
                          slotProps={{ htmlInput: { 'aria-label': translate(L('from')) } }}
                        />
                      </TableCell>
                      <TableCell>
                        <TextField
                          size="small"
                          type="date"
                          value={r.to}
                          onChange={(e) => change(i, { to: e.target.value })}
                          disabled={readOnly}
                          error={problem === 'period'}
                          helperText={problem === 'period' ? translate(L('problems.period')) : undefined}
                          slotProps={{ htmlInput: { 'aria-label': translate(L('to')) } }}
                        />
                      </TableCell>
                      <TableCell>
                        {readOnly ? null : (
                          <Tooltip title={translate(L('remove'))}>
                            <IconButton aria-label={translate(L('remove'))} onClick={() => setRows((rs) => rs.filter((_, j) => j !== i))}>
                              <DeleteIcon />
                            </IconButton>
                          </Tooltip>
                        )}
                      </TableCell>
                    </TableRow>
                  );
                })}
                {rows.length === 0 ? (
                  <TableRow>
                    <TableCell colSpan={7}>
                      <Typography variant="body2" color="text.secondary">
                        {translate(L('none'))}
                      </Typography>
                    </TableCell>
                  </TableRow>
                ) : null}
              </TableBody>
            </Table>
            {issues.length ? (
              <Alert severity="error" sx={{ mt: 2 }} data-testid="share-issues">
                {issues.map((t) => (
                  <div key={t}>{t}</div>
                ))}
              </Alert>
            ) : null}
            {readOnly ? null : (
              <Stack direction="row" spacing={1} sx={{ mt: 2 }}>
                <Button
                  startIcon={<AddIcon />}
                  disabled={!unused}
                  onClick={() =>
                    unused && setRows((rs) => [...rs, keyed({ type: unused, is_active: true, quantity: null, from: '', to: '' })])
                  }
                >
                  {translate(L('add'))}
                </Button>
                <Box sx={{ flex: 1 }} />
                <Button variant="contained" disabled={save.isPending || problems.length > 0} onClick={() => save.mutate()}>
                  {translate(L('save'))}
                </Button>
              </Stack>
            )}
          </>
        ) : null}
        {save.error && !issues.length ? (
          <Alert severity="error" sx={{ mt: 2 }}>
            {errorMessageOf(save.error) ? errorText(save.error, translate) : translate('errors.default')}
          </Alert>
        ) : null}
      </CardContent>
    </Card>
  );
}
