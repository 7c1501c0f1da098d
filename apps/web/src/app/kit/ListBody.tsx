import { Box, ListItem, ListItemButton, List as MuiList, Skeleton, Typography, useMediaQuery } from '@mui/material';
import type { SxProps, Theme } from '@mui/material/styles';
import {
  Children,
  cloneElement,
  isValidElement,
  type KeyboardEvent,
  memo,
  type ReactElement,
  type ReactNode,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
} from 'react';
import {
  Datagrid,
  DatagridBody,
  DatagridConfigurable,
  type DatagridProps,
  DatagridRow,
  type DatagridRowProps,
  FieldTitle,
  type RaRecord,
  RecordContextProvider,
  useGetPathForRecordCallback,
  useListContext,
  useResourceContext,
  useStore,
} from 'react-admin';
import { Link, useNavigate } from 'react-router-dom';

/** Screens up to this width (a phone held upright) get a list of lines instead of a table. */
export const NARROW_SCREEN = '(max-width:600px)';

/**
 * Desks at least this wide show a list's secondary columns (`secondary`): below it, on a laptop with
 * the menu open, nine columns with dates do not fit the card without scrolling sideways.
 */
export const WIDE_SCREEN = '(min-width:1440px)';

/** Class of a column whose text is prose: it wraps (up to a readable measure) instead of widening the table. */
export const PROSE_CELL = 'kit-prose';

/** Class of a column of buttons acting on the row: they wrap onto more lines rather than widen the table. */
export const ACTIONS_CELL = 'kit-actions';

/** Class of the identifying column's cells (header and rows): never cut. */
export const IDENTIFYING_CELL = 'kit-identifying';

/** Class of `EllipsisField`'s text: cut with an ellipsis when its column is short of width, except in the identifying column. */
export const ELLIPSIS_TEXT = 'kit-ellipsis';

type Field = ReactElement<{ source?: string; label?: ReactNode; cellClassName?: string }>;

const fieldsOf = (children: ReactNode): Field[] => Children.toArray(children).filter(isValidElement) as Field[];

/**
 * The column that names a record: the one given, else `name` when there is one, else the first
 * column that is not the bare id.
 */
export function identifyingSource(children: ReactNode, given?: string): string | undefined {
  if (given) return given;
  const sources = fieldsOf(children).map((f) => f.props.source);
  return sources.includes('name') ? 'name' : (sources.find((s) => s && s !== 'id') ?? sources[0]);
}

/**
 * A row reachable by keyboard when it opens something: it takes focus in the Tab order and Enter
 * opens it, exactly as a click would (react-admin's row only listens to the mouse).
 */
const KeyboardRow = memo(function KeyboardRow(props: DatagridRowProps) {
  const opens = props.rowClick !== false && props.rowClick !== undefined;
  const onKeyDown = (event: KeyboardEvent<HTMLTableRowElement>) => {
    // Only the row itself: Enter on a checkbox or a button inside it is theirs.
    if (event.key === 'Enter' && event.target === event.currentTarget) {
      event.preventDefault();
      event.currentTarget.click();
    }
  };
  const ref = useRef<HTMLTableRowElement>(null);
  // react-admin gives the row's checkbox its name on MUI's root span, where a span with no role may
  // not carry one (axe aria-prohibited-attr) and the input stays unnamed: the name moves to the input.
  useLayoutEffect(() => {
    const box = ref.current?.querySelector('.select-item');
    const input = box?.querySelector('input');
    const label = box?.getAttribute('aria-label');
    if (box && input && label && box.tagName !== 'INPUT') {
      input.setAttribute('aria-label', label);
      box.removeAttribute('aria-label');
    }
  });
  return <DatagridRow ref={ref} {...props} {...(opens ? { tabIndex: 0, onKeyDown } : {})} />;
});

const KEYBOARD_BODY = <DatagridBody row={<KeyboardRow />} />;

/**
 * Where a record of a line leads, as a path (react-admin's rowClick rules), or null when nowhere. A
 * rowClick given as a function is the page's click handler (it may open a panel and answer false), so
 * it is called on a click only, as the table does (see RecordLine), never to draw a line.
 */
function useRecordPath(record: RaRecord, rowClick: DatagridProps['rowClick']): string | null {
  const resource = useResourceContext();
  const getPathForRecord = useGetPathForRecordCallback();
  const [path, setPath] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    (async () => {
      if (!rowClick || !resource || typeof rowClick === 'function') return setPath(null);
      const link = rowClick;
      if (link === 'expand' || link === 'toggleSelection') return setPath(null);
      const found = await getPathForRecord({ record, resource, link });
      if (live) setPath(typeof found === 'string' ? found : null);
    })().catch(() => live && setPath(null));
    return () => {
      live = false;
    };
  }, [record, resource, rowClick, getPathForRecord]);
  return path;
}

/**
 * One record as a line of a phone's list: its name on top, then each other column as "label value",
 * and the row's buttons last, outside the link that opens the record.
 */
function RecordLine({
  record,
  primary,
  others,
  rowClick,
}: {
  record: RaRecord;
  primary: Field | undefined;
  others: Field[];
  rowClick: DatagridProps['rowClick'];
}) {
  const resource = useResourceContext();
  const path = useRecordPath(record, rowClick);
  const getPathForRecord = useGetPathForRecordCallback();
  const navigate = useNavigate();
  // A click handler of the page: the line is a button that calls it, then goes where it answers (if anywhere).
  const onClick =
    typeof rowClick === 'function' && resource
      ? async () => {
          const link = await rowClick(record.id, resource, record);
          if (!link || link === 'expand' || link === 'toggleSelection') return;
          const found = await getPathForRecord({ record, resource, link });
          if (typeof found === 'string') navigate(found);
        }
      : null;
  const values = others.filter((f) => f.props.source !== undefined);
  const actions = others.filter((f) => f.props.source === undefined);
  const body = (
    <Box sx={{ minWidth: 0, width: '100%' }}>
      {primary ? (
        <Typography
          component="div"
          variant="subtitle1"
          className={IDENTIFYING_CELL}
          sx={{
            fontWeight: 600,
            overflowWrap: 'anywhere',
            '& .MuiTypography-root': { fontWeight: 'inherit', fontSize: 'inherit' },
            [`& .${ELLIPSIS_TEXT}`]: { whiteSpace: 'normal' },
          }}
        >
          {primary}
        </Typography>
      ) : null}
      <Box
        component="dl"
        sx={{ m: 0, display: 'grid', gridTemplateColumns: 'minmax(6rem, max-content) minmax(0, 1fr)', columnGap: 1.5, rowGap: 0.25 }}
      >
        {values.map((field, i) => (
          <Box key={field.props.source ?? i} sx={{ display: 'contents' }}>
            <Typography component="dt" variant="body2" color="text.secondary">
              <FieldTitle label={field.props.label as string | undefined} source={field.props.source} resource={resource} />
            </Typography>
            <Typography
              component="dd"
              variant="body2"
              sx={{ m: 0, minWidth: 0, overflowWrap: 'anywhere', [`& .${ELLIPSIS_TEXT}`]: { whiteSpace: 'normal' } }}
            >
              {field}
            </Typography>
          </Box>
        ))}
      </Box>
    </Box>
  );
  return (
    <RecordContextProvider value={record}>
      <ListItem divider disablePadding sx={{ flexDirection: 'column', alignItems: 'stretch' }}>
        {path ? (
          <ListItemButton component={Link} to={path} sx={{ alignItems: 'flex-start' }}>
            {body}
          </ListItemButton>
        ) : onClick ? (
          <ListItemButton onClick={() => void onClick()} sx={{ alignItems: 'flex-start' }}>
            {body}
          </ListItemButton>
        ) : (
          <Box sx={{ px: 2, py: 1 }}>{body}</Box>
        )}
        {actions.length ? (
          <Box sx={{ px: 1, pb: 1, display: 'flex', flexWrap: 'wrap', justifyContent: 'flex-end', gap: 0.5 }}>{actions}</Box>
        ) : null}
      </ListItem>
    </RecordContextProvider>
  );
}

/**
 * The list as lines, for phones (react-admin's SimpleList pattern): every record's identifying
 * column as its title and the columns the table shows as label–value pairs; a line that opens a
 * record is a real link.
 */
function LineList({
  fields,
  primary,
  rowClick,
  empty,
  label,
}: {
  fields: Field[];
  primary: string | undefined;
  rowClick: DatagridProps['rowClick'];
  empty: ReactElement;
  label?: string;
}) {
  const { data, isPending } = useListContext();
  if (isPending) {
    return (
      <Box sx={{ p: 2 }} aria-busy="true">
        {[0, 1, 2].map((i) => (
          <Skeleton key={i} height={56} />
        ))}
      </Box>
    );
  }
  if (!data || data.length === 0) return empty;
  const title = fields.find((f) => f.props.source === primary);
  const others = fields.filter((f) => f !== title && f.props.source !== 'id');
  return (
    <MuiList disablePadding aria-label={label}>
      {data.map((record) => (
        <RecordLine key={record.id} record={record} primary={title} others={others} rowClick={rowClick} />
      ))}
    </MuiList>
  );
}

/**
 * The columns a table shows now: the user's choice of a configurable table, else all but `omit` and,
 * below a wide desk, the `secondary` ones. react-admin keeps a configurable table's hidden columns in
 * its store from the first visit: while the user has made no choice, the store follows the screen.
 */
function useShownFields(fields: Field[], omit: string[] | undefined, secondary: string[] | undefined): [Field[], string[] | undefined] {
  const resource = useResourceContext();
  const wide = useMediaQuery(WIDE_SCREEN, { noSsr: true });
  const [columns] = useStore<string[] | undefined>(`preferences.${resource}.datagrid.columns`);
  const [, setStoredOmit] = useStore<string[] | undefined>(`preferences.${resource}.datagrid.omit`);
  const hidden = [...(omit ?? []), ...(wide ? [] : (secondary ?? []))];
  const key = hidden.join(',');
  const configurable = omit !== undefined;
  useEffect(() => {
    if (configurable && !columns) setStoredOmit(key ? key.split(',') : []);
  }, [configurable, columns, key, setStoredOmit]);
  if (configurable && columns) return [columns.map((i) => fields[Number(i)]).filter((f): f is Field => !!f), hidden];
  return [fields.filter((f) => !f.props.source || !hidden.includes(f.props.source)), configurable ? hidden : undefined];
}

/**
 * How the table lays out its columns: each as wide as its content and on one line (a date, a number,
 * a chip), except the free texts (`EllipsisField`), which share what width is left and end with an
 * ellipsis when it is not enough, prose, which wraps, and the identifying column, which is whole on
 * one line when the card has room and wraps between its words when it has not.
 */
const TABLE_SX: SxProps<Theme> = {
  '& .RaDatagrid-tableWrapper': { overflowX: 'auto' },
  '& .RaDatagrid-table': { tableLayout: 'auto', width: '100%' },
  // MUI's 16 px on each side of every cell is a column's width of air in a table of nine columns:
  // 12 px between cells, 16 px at the card's edges (the checkbox cell keeps its own).
  '& .RaDatagrid-headerCell:not(.MuiTableCell-paddingCheckbox), & .RaDatagrid-rowCell:not(.MuiTableCell-paddingCheckbox)': {
    paddingLeft: '12px',
    paddingRight: '12px',
    '&:first-of-type': { paddingLeft: '16px' },
    '&:last-of-type': { paddingRight: '16px' },
  },
  // A long header wraps between its words rather than widen its column past its values.
  '& .RaDatagrid-headerCell': { whiteSpace: 'normal', overflowWrap: 'normal', verticalAlign: 'bottom' },
  // A width of 1% shrinks a column to its content, leaving the rest of the line to the free texts.
  '& .RaDatagrid-rowCell': { whiteSpace: 'nowrap', width: '1%' },
  // The identifying column takes what the others leave, up to its names on one line; short of that
  // it wraps between words (never cut, never narrower than a name's first words).
  [`& .RaDatagrid-rowCell.${IDENTIFYING_CELL}`]: { whiteSpace: 'normal', overflowWrap: 'normal', width: 'auto', minWidth: '16ch' },
  [`& .RaDatagrid-rowCell.${IDENTIFYING_CELL} .${ELLIPSIS_TEXT}`]: { whiteSpace: 'normal' },
  // A zero max-width lets a free text's column give up width instead of widening the table.
  [`& .RaDatagrid-rowCell:has(> .${ELLIPSIS_TEXT}):not(.${IDENTIFYING_CELL})`]: { width: 'auto', maxWidth: 0, minWidth: '12ch' },
  [`& .RaDatagrid-rowCell.${PROSE_CELL}`]: { whiteSpace: 'normal', width: 'auto', minWidth: '16ch' },
  // Row buttons take the width of the widest and stack, leaving the line to the texts.
  [`& .RaDatagrid-rowCell.${ACTIONS_CELL}`]: { whiteSpace: 'normal', textAlign: 'right' },
  // The select column keeps its checkbox's width.
  '& .RaDatagrid-headerCell.MuiTableCell-paddingCheckbox': { width: 58 },
  // A visible focus on rows (they open the record with Enter) and on the sort buttons.
  '& .RaDatagrid-row:focus-visible': { outline: '2px solid', outlineColor: 'primary.main', outlineOffset: -2 },
  '& .MuiTableSortLabel-root.Mui-focusVisible': { outline: '2px solid', outlineColor: 'primary.main', outlineOffset: 2, borderRadius: 0.5 },
};

/**
 * The columns with the identifying one marked (`IDENTIFYING_CELL`, header and cells), and each
 * column without a source (buttons acting on the row) marked `ACTIONS_CELL`.
 */
function markColumns(fields: Field[], identifying: string | undefined): Field[] {
  const mark = (f: Field, cell: string, header?: string) =>
    cloneElement(f as ReactElement<Record<string, unknown>>, {
      cellClassName: [f.props.cellClassName, cell].filter(Boolean).join(' '),
      ...(header ? { headerClassName: header } : {}),
    }) as Field;
  return fields.map((f) =>
    identifying && f.props.source === identifying
      ? mark(f, IDENTIFYING_CELL, IDENTIFYING_CELL)
      : f.props.source === undefined
        ? mark(f, ACTIONS_CELL)
        : f,
  );
}

/**
 * A table's column of row buttons (no source) with no label of its own is headed "Actions": an empty
 * header cell leaves the column unnamed to a screen reader (axe `empty-table-header`). A phone's lines
 * show such buttons without a label, so only the table's columns get it.
 */
function nameButtonColumns(fields: Field[]): Field[] {
  return fields.map((f) => {
    const label = f.props.label;
    const unnamed = label === undefined || label === false || (typeof label === 'string' && label.trim() === '');
    return f.props.source === undefined && unnamed
      ? (cloneElement(f as ReactElement<Record<string, unknown>>, { label: 'form.actions' }) as Field)
      : f;
  });
}

export interface ListBodyProps extends Omit<DatagridProps, 'children' | 'sx' | 'empty'> {
  /** Columns hidden until the user shows them (the toolbar's column chooser remembers the choice). */
  omit?: string[];
  /**
   * Columns shown only on wide desks (`WIDE_SCREEN`): a list with too many columns for a laptop's
   * card drops these there rather than scroll sideways; the column chooser, where offered, still
   * shows them.
   */
  secondary?: string[];
  /** The column that names a record, never cut; by default `name`, else the first column but `id`. */
  primary?: string;
  /** What an empty list shows. */
  empty: ReactElement;
  sx?: SxProps<Theme>;
  /** The accessible name of the table (or of the phone's list). */
  'aria-label'?: string;
  children: ReactNode;
}

/**
 * The records of the list context, as a table on desks and as lines on phones: the one body of every
 * console list, so layout, keyboard, empty and loading states are solved once.
 */
export function ListBody({ omit, secondary, primary, empty, sx, children, rowClick, ...props }: ListBodyProps) {
  const narrow = useMediaQuery(NARROW_SCREEN, { noSsr: true });
  const identifying = identifyingSource(children, primary);
  const fields = markColumns(fieldsOf(children), identifying);
  const [shown, hidden] = useShownFields(fields, omit, secondary);
  if (narrow) return <LineList fields={shown} primary={identifying} rowClick={rowClick} empty={empty} label={props['aria-label']} />;
  // A configurable table is given every column (its chooser lists them) and hides them by the store.
  const Table = hidden ? DatagridConfigurable : Datagrid;
  return (
    <Table
      body={KEYBOARD_BODY}
      rowClick={rowClick}
      empty={empty}
      {...(hidden ? { omit: hidden } : {})}
      {...props}
      sx={[TABLE_SX, ...(Array.isArray(sx) ? sx : [sx ?? {}])]}
    >
      {nameButtonColumns(hidden ? fields : shown)}
    </Table>
  );
}
