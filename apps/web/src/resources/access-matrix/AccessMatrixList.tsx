import { Chip } from '@mui/material';
import { type ReactNode, useContext, useMemo } from 'react';
import {
  AutocompleteInput,
  DataProviderContext,
  FunctionField,
  Pagination,
  ReferenceInput,
  SearchInput,
  useListContext,
  useLocaleState,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { ListDownload } from '../../app/kit/ListDownload';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { LocaleNumberField } from '../../app/kit/LocaleFields';
import { formatTotal, matrixFilterQuery, matrixProvider, matrixSort, type Row } from './matrix';

function MatrixProvider({ children }: { children: ReactNode }) {
  const base = useContext(DataProviderContext) as AtriumDataProvider | null;
  const value = useMemo(() => (base ? matrixProvider(base) : base), [base]);
  return <DataProviderContext.Provider value={value}>{children}</DataProviderContext.Provider>;
}

/** The pager, with the real total (which may run to millions) in the reader's number format. */
function MatrixPagination() {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const { meta } = useListContext() as { meta?: { total?: number; estimated?: boolean } };
  const label = ({ from, to, count }: { from: number; to: number; count: number }) =>
    translate('access_matrix.range', {
      from: formatTotal(from, locale),
      to: formatTotal(to, locale),
      total: formatTotal(meta?.total ?? count, locale, meta?.estimated),
    });
  return <Pagination rowsPerPageOptions={[10, 20, 50, 100]} {...({ labelDisplayedRows: label } as object)} />;
}

/** The matrix route takes its filters as plain parameters and its own sort names (matrix.ts). */
const matrixDownloadQuery = (filterValues: Record<string, unknown>, sort: { field?: string; order?: string }) => ({
  sort: matrixSort(sort),
  ...matrixFilterQuery(filterValues),
});

const byName = (q: string) => (q ? { 'name@has': q } : {});
const userText = (u: { name?: string; login?: string } | undefined) => (u ? `${u.name ?? ''}${u.login ? ` (${u.login})` : ''}` : '');
const F = 'resources.access-matrix.fields';

/** The search box, hinting at what it searches. */
function MatrixSearch(props: { source: string; alwaysOn?: boolean }) {
  const translate = useTranslate();
  return <SearchInput {...props} placeholder={translate('access_matrix.search')} sx={{ width: { xs: '100%', sm: 340 } }} />;
}

const filters = [
  <MatrixSearch key="search" source="search" alwaysOn />,
  <ReferenceInput key="user_id" source="user_id" reference="users" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
    <AutocompleteInput label={`${F}.user_id`} optionText={userText} filterToQuery={byName} />
  </ReferenceInput>,
  <ReferenceInput key="device_id" source="device_id" reference="devices" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
    <AutocompleteInput label={`${F}.device_id`} filterToQuery={byName} />
  </ReferenceInput>,
  <ReferenceInput key="identifier_id" source="identifier_id" reference="identifiers" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
    <AutocompleteInput label={`${F}.identifier_id`} filterToQuery={byName} />
  </ReferenceInput>,
  <ReferenceInput key="rule_id" source="rule_id" reference="access-rules" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
    <AutocompleteInput label={`${F}.rule_id`} filterToQuery={byName} />
  </ReferenceInput>,
];

function EffectField(_: { source?: string; label?: string; sortable?: boolean }) {
  const translate = useTranslate();
  const r = useRecordContext<Row>();
  if (!r) return null;
  return (
    <Chip
      size="small"
      color={r.prohibition ? 'error' : 'success'}
      variant="outlined"
      label={translate(r.prohibition ? 'access_matrix.denies' : 'access_matrix.allows')}
    />
  );
}

function AccessMatrixListView() {
  const translate = useTranslate();
  return (
    <ListPage
      title={translate('access_matrix.title')}
      sort={{ field: 'user_name', order: 'ASC' }}
      filters={filters}
      rowClick={false}
      pagination={<MatrixPagination />}
      extraActions={<ListDownload path="/access-matrix/download" name="access-matrix" query={matrixDownloadQuery} />}
    >
      <EllipsisField source="user_name" emptyText={translate('access_matrix.nobody')} />
      <EllipsisField source="identifier_name" sortable={false} />
      <EllipsisField
        source="identifier_type"
        sortable={false}
        render={(r) => translate(`identifiers.types.${String(r.identifier_type)}`, { _: String(r.identifier_type) })}
      />
      <EllipsisField source="device_name" />
      <LocaleNumberField code source="lock_number" sortable={false} emptyText="—" />
      <EllipsisField source="rule_name" />
      <EffectField source="prohibition" sortable={false} />
      <FunctionField
        source="schedules"
        sortable={false}
        render={(r: Row) => (
          <EllipsisField
            source="schedules"
            emptyText={translate('access_matrix.always')}
            render={() => r.schedules.map((s) => s.name).join(', ')}
          />
        )}
      />
    </ListPage>
  );
}

/** The access matrix: which identifier (and whose) reaches which door and lock, through which rule, when. */
export function AccessMatrixList() {
  return (
    <MatrixProvider>
      <AccessMatrixListView />
    </MatrixProvider>
  );
}
