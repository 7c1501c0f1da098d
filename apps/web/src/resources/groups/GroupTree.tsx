import { DOMAIN_SEARCH_MIN_LENGTH } from '@atrium/contract';
import AddIcon from '@mui/icons-material/Add';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import SearchIcon from '@mui/icons-material/Search';
import {
  Box,
  Button,
  IconButton,
  InputAdornment,
  LinearProgress,
  Link,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useDataProvider, useTranslate } from 'react-admin';
import { Link as RouterLink, useNavigate } from 'react-router-dom';
import { groupAccess } from '../../app/action-rules';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { errorText } from '../../app/errors';
import { GROUPS_API } from '../../app/kit/GroupPicker';
import { useDomainTypes } from '../../app/kit/StructureDialogs';
import { useActions } from '../../app/kit/useActions';
import { buildTree, pathOf, searchTree, type TreeItem, visibleRows } from './tree';

/** Read by screen readers only (the buttons' column needs a header name; it shows none). */
const HIDDEN = {
  position: 'absolute',
  width: '1px',
  height: '1px',
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
} as const;

const PAGE = 200;
/** Columns a phone leaves out: the tree's names and types take its width. */
const WIDE_ONLY = { display: { xs: 'none', sm: 'table-cell' } } as const;

/** The groups a user sees, as an indented expandable table with search (`GET /domains/completely`). */
export function GroupTree() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const dp = useDataProvider<AtriumDataProvider>();
  const types = useDomainTypes();
  const { permissions, me } = useActions();
  const [search, setSearch] = useState('');
  const [expanded, setExpanded] = useState<Set<number>>(new Set());
  const [shown, setShown] = useState(PAGE);
  const all = useQuery({
    queryKey: [GROUPS_API, 'completely'],
    queryFn: async ({ signal }) => (await dp.request<{ data: TreeItem[] }>(`/${GROUPS_API}/completely`, { signal })).data,
  });
  const roots = useMemo(() => buildTree(all.data ?? []), [all.data]);
  const typeName = useMemo(() => new Map((types.data ?? []).map((t) => [t.id, t.name])), [types.data]);
  const parents = useMemo(() => new Map((all.data ?? []).map((g) => [g.id, g.parent_id])), [all.data]);
  const mayAddChild = (id: number) => groupAccess(permissions, me, { id, path: pathOf(id, parents) }).createChild;

  const active = search.trim().length >= DOMAIN_SEARCH_MIN_LENGTH;
  const found = useMemo(() => (active ? searchTree(roots, search) : null), [active, roots, search]);
  const rows = visibleRows(found ? found.roots : roots, found ? new Set([...found.expand, ...expanded]) : expanded);

  const toggle = (id: number) =>
    setExpanded((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <Paper sx={{ mt: 1 }}>
      <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ p: 2, gap: 2, alignItems: { sm: 'center' } }}>
        <TextField
          size="small"
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            setShown(PAGE);
          }}
          placeholder={translate('resources.groups.fields.search')}
          helperText={
            search.trim() && !active
              ? translate('groups.search_min', { length: DOMAIN_SEARCH_MIN_LENGTH })
              : found
                ? translate('groups.found', { smart_count: found.matches })
                : translate('groups.count', { smart_count: all.data?.length ?? 0 })
          }
          slotProps={{
            htmlInput: { 'aria-label': translate('resources.groups.fields.search') },
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchIcon fontSize="small" />
                </InputAdornment>
              ),
            },
          }}
          sx={{ minWidth: 280 }}
        />
        <Box sx={{ flex: 1 }} />
        <Button size="small" onClick={() => setExpanded(new Set((all.data ?? []).map((g) => g.id)))}>
          {translate('groups.expand_all')}
        </Button>
        <Button size="small" onClick={() => setExpanded(new Set())}>
          {translate('groups.collapse_all')}
        </Button>
      </Stack>
      {all.isPending ? <LinearProgress aria-label={translate('app.loading')} /> : null}
      {all.isError ? (
        <Typography color="error" sx={{ p: 2 }} role="alert">
          {errorText(all.error, translate)}
        </Typography>
      ) : null}
      {all.data && all.data.length === 0 ? (
        <Typography color="text.secondary" sx={{ p: 4, textAlign: 'center' }}>
          {translate('list.empty')}
        </Typography>
      ) : null}
      {rows.length > 0 ? (
        <Table size="small" aria-label={translate('groups.title')}>
          <TableHead>
            <TableRow>
              <TableCell>{translate('resources.groups.fields.name')}</TableCell>
              <TableCell>{translate('resources.groups.fields.domain_type_id')}</TableCell>
              <TableCell align="right" sx={WIDE_ONLY}>
                {translate('resources.groups.fields.logic_address')}
              </TableCell>
              <TableCell align="right" sx={WIDE_ONLY}>
                {translate('resources.groups.fields.id')}
              </TableCell>
              <TableCell sx={{ width: 56 }}>
                <Box component="span" sx={HIDDEN}>
                  {translate('form.actions')}
                </Box>
              </TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.slice(0, shown).map((n) => {
              const open = found ? found.expand.has(n.id) || expanded.has(n.id) : expanded.has(n.id);
              const hit = found && n.name.toLowerCase().includes(search.trim().toLowerCase());
              return (
                <TableRow key={n.id} hover sx={{ cursor: 'pointer' }} onClick={() => navigate(`/groups/${n.id}`)}>
                  <TableCell sx={{ pl: 1 + n.depth * 3 }}>
                    <Stack direction="row" sx={{ alignItems: 'center' }}>
                      {n.children.length ? (
                        <IconButton
                          size="small"
                          aria-expanded={open}
                          aria-label={translate(open ? 'groups.collapse' : 'groups.expand', { name: n.name })}
                          onClick={(e) => {
                            e.stopPropagation();
                            toggle(n.id);
                          }}
                        >
                          {open ? <ExpandMoreIcon fontSize="small" /> : <ChevronRightIcon fontSize="small" />}
                        </IconButton>
                      ) : (
                        <Box sx={{ width: 34 }} />
                      )}
                      {/* The name is the row's link, so the keyboard opens a group as the mouse does. */}
                      <Link
                        component={RouterLink}
                        to={`/groups/${n.id}`}
                        color="inherit"
                        underline="hover"
                        sx={{ fontWeight: hit ? 600 : 400 }}
                        onClick={(e) => e.stopPropagation()}
                      >
                        {n.name}
                      </Link>
                      {n.children.length ? (
                        <Typography variant="caption" color="text.secondary" sx={{ ml: 1 }}>
                          ({n.children.length})
                        </Typography>
                      ) : null}
                    </Stack>
                  </TableCell>
                  <TableCell>
                    {n.domain_type_id ? (typeName.get(n.domain_type_id) ?? n.domain_type_id) : translate('groups.no_type')}
                  </TableCell>
                  <TableCell align="right" sx={WIDE_ONLY}>
                    {n.logic_address ?? '—'}
                  </TableCell>
                  <TableCell align="right" sx={WIDE_ONLY}>
                    {n.id}
                  </TableCell>
                  <TableCell>
                    {mayAddChild(n.id) ? (
                      <Tooltip title={translate('groups.add_child')}>
                        <IconButton
                          size="small"
                          aria-label={`${translate('groups.add_child')}: ${n.name}`}
                          onClick={(e) => {
                            e.stopPropagation();
                            navigate(`/groups/add?source=${encodeURIComponent(JSON.stringify({ parent_id: n.id }))}`);
                          }}
                        >
                          <AddIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    ) : null}
                  </TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      ) : null}
      {rows.length > shown ? (
        <Box sx={{ p: 1, textAlign: 'center' }}>
          <Button onClick={() => setShown((s) => s + PAGE)}>{translate('notifications.load_more')}</Button>
        </Box>
      ) : null}
    </Paper>
  );
}
