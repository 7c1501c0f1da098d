import type { PermissionDef } from '@atrium/contract';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import SearchIcon from '@mui/icons-material/Search';
import {
  Accordion,
  AccordionDetails,
  AccordionSummary,
  Box,
  Checkbox,
  Chip,
  InputAdornment,
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
import { useState } from 'react';
import { useInput, useLocaleState, useTranslate } from 'react-admin';
import { useSessionData } from '../../app/SessionContext';
import {
  type FamilyBlock,
  filterBlocks,
  grantable,
  groupPermissions,
  type PermissionRow,
  rowCodes,
  SCOPES,
  selectionState,
  setCodes,
} from './permissionGroups';

const BLOCKS = groupPermissions();
/** Every code of each family, whatever the search shows of it: the counter is selected / all. */
const FAMILY_CODES = new Map(BLOCKS.map((b) => [b.family, b.rows.flatMap(rowCodes)]));

/**
 * The permission editor of a role: the catalogue grouped by family, scope variants of one action
 * side by side, search in both languages, select-all per family. Codes the holder may not grant
 * (they lack them and the grant-beyond-own permission) are shown but cannot be switched on.
 * `readOnly` (or a disabled form): the selection is shown and nothing can be switched.
 */
export function PermissionEditor({ source = 'permissions', readOnly = false }: { source?: string; readOnly?: boolean }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const { permissions: holder } = useSessionData();
  const { field } = useInput({ source, defaultValue: [] });
  const selected: string[] = Array.isArray(field.value) ? field.value : [];
  const [search, setSearch] = useState('');
  const [open, setOpen] = useState<Record<string, boolean>>({});

  const label = (p: { en: string; ru: string }) => (locale === 'ru' ? p.ru : p.en);
  const rowLabel = (row: PermissionRow) =>
    row.kind === 'plain'
      ? label(row.permission)
      : `${translate(`roles.editor.actions.${row.action}`, { _: row.action })}: ${translate(`roles.editor.resources.${row.resource}`, { _: row.resource })}`;
  const blocks = filterBlocks(BLOCKS, search, rowLabel);
  const searching = search.trim() !== '';

  const change = (codes: string[], on: boolean) => field.onChange(setCodes(selected, codes, on));
  const locked = readOnly || !!field.disabled;
  const mayToggle = (code: string) => !locked && (selected.includes(code) || grantable(code, holder));

  const box = (p: PermissionDef | undefined) => {
    if (!p) return <Typography color="text.disabled">—</Typography>;
    const checked = selected.includes(p.code);
    const control = (
      <Checkbox
        size="small"
        checked={checked}
        disabled={!mayToggle(p.code)}
        onChange={(e) => change([p.code], e.target.checked)}
        slotProps={{ input: { 'aria-label': label(p) } }}
      />
    );
    return (
      <Tooltip title={`${label(p)} (${p.code})`} placement="top" describeChild>
        <span>{control}</span>
      </Tooltip>
    );
  };

  const familyHeader = (b: FamilyBlock) => {
    const codes = b.rows.flatMap(rowCodes);
    const allowed = codes.filter(mayToggle);
    const state = selectionState(selected, codes);
    // While searching the rows are the matching ones only; the counter still counts the whole family.
    const familyCodes = FAMILY_CODES.get(b.family) ?? codes;
    const count = familyCodes.filter((c) => selected.includes(c)).length;
    // The family's checkbox sits beside the summary button, not inside it: a control within a
    // button is out of reach for assistive technology (axe: nested-interactive).
    return (
      <Stack direction="row" sx={{ alignItems: 'center', pl: 1 }}>
        <Checkbox
          size="small"
          checked={state === 'all'}
          indeterminate={state === 'some'}
          disabled={allowed.length === 0}
          onChange={(e) => change(allowed, e.target.checked)}
          slotProps={{ input: { 'aria-label': translate('roles.editor.select_all', { family: label(b.label) }) } }}
        />
        <AccordionSummary expandIcon={<ExpandMoreIcon />} sx={{ flex: 1, pl: 1 }}>
          <Stack direction="row" sx={{ alignItems: 'center', gap: 1, width: '100%' }}>
            <Typography sx={{ flex: 1, fontWeight: 500 }}>{label(b.label)}</Typography>
            <Chip size="small" label={`${count} / ${familyCodes.length}`} color={count ? 'primary' : 'default'} variant="outlined" />
          </Stack>
        </AccordionSummary>
      </Stack>
    );
  };

  return (
    <Box sx={{ width: '100%' }}>
      <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ gap: 2, alignItems: { sm: 'center' }, mb: 1 }}>
        <Typography variant="h6" component="h2" sx={{ flex: 1 }}>
          {translate('roles.editor.title')}{' '}
          <Typography component="span" color="text.secondary">
            ({translate('roles.editor.selected', { smart_count: selected.length })})
          </Typography>
        </Typography>
        <TextField
          size="small"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          placeholder={translate('roles.editor.search')}
          slotProps={{
            htmlInput: { 'aria-label': translate('roles.editor.search') },
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchIcon fontSize="small" />
                </InputAdornment>
              ),
            },
          }}
        />
      </Stack>
      {!locked && !grantable('__any__', holder) ? (
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          {translate('roles.editor.limited_hint')}
        </Typography>
      ) : null}
      {blocks.length === 0 ? <Typography color="text.secondary">{translate('roles.editor.nothing_found')}</Typography> : null}
      {blocks.map((b) => {
        const scoped = b.rows.some((r) => r.kind === 'scoped');
        return (
          <Accordion
            key={b.family}
            disableGutters
            expanded={searching || !!open[b.family]}
            onChange={(_, e) => setOpen((o) => ({ ...o, [b.family]: e }))}
          >
            {familyHeader(b)}
            <AccordionDetails sx={{ p: 0 }}>
              <Table size="small">
                <TableHead>
                  <TableRow>
                    <TableCell>{translate('roles.editor.permission')}</TableCell>
                    {scoped ? (
                      SCOPES.map((s) => (
                        <TableCell key={s} align="center" sx={{ width: 120 }}>
                          {translate(`roles.editor.scopes.${s}`)}
                        </TableCell>
                      ))
                    ) : (
                      <TableCell align="center" sx={{ width: 120 }}>
                        {translate('roles.editor.granted')}
                      </TableCell>
                    )}
                  </TableRow>
                </TableHead>
                <TableBody>
                  {b.rows.map((row) => (
                    <TableRow key={row.key} hover>
                      <TableCell>{rowLabel(row)}</TableCell>
                      {row.kind === 'plain' ? (
                        <TableCell align="center" colSpan={scoped ? SCOPES.length : 1}>
                          {box(row.permission)}
                        </TableCell>
                      ) : (
                        SCOPES.map((s) => (
                          <TableCell key={s} align="center">
                            {box(row.scopes[s])}
                          </TableCell>
                        ))
                      )}
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </AccordionDetails>
          </Accordion>
        );
      })}
    </Box>
  );
}
