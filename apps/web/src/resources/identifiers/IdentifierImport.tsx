import type { IdentifierImportResult } from '@atrium/contract';
import { IDENTIFIER_COLUMNS } from '@atrium/contract';
import DownloadIcon from '@mui/icons-material/Download';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  LinearProgress,
  List,
  ListItem,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useId, useState } from 'react';
import { useDataProvider, useRefresh, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { displayValue, useIdentifierFormat } from '../../app/identifier-value';
import { useAlert } from '../../app/useAlert';
import { useIdentifierExport } from './IdentifierExport';
import { changedAnything, importSummary, NO_TIMEOUT_MS, rowErrorLines } from './transfer';

type Action = 'skip' | 'replace' | 'cancel';

/** The row errors of an attempt or an import, one line each. */
function RowErrors({ result }: { result: IdentifierImportResult }) {
  const translate = useTranslate();
  const lines = rowErrorLines(result, translate);
  if (!lines.length) return null;
  return (
    <Box sx={{ mt: 2 }}>
      <Typography variant="subtitle2">{translate('identifiers.import.row_errors')}</Typography>
      <List dense disablePadding sx={{ maxHeight: 240, overflow: 'auto' }}>
        {lines.map((line, i) => (
          // The server lists each row once per complaint, in file order: the index is the identity.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          <ListItem key={i} disableGutters sx={{ py: 0, typography: 'body2' }}>
            {line}
          </ListItem>
        ))}
      </List>
    </Box>
  );
}

/** The counts of an import or an attempt, and its row errors unless the caller places them. */
function Summary({ result, withErrors = true }: { result: IdentifierImportResult; withErrors?: boolean }) {
  const translate = useTranslate();
  const summary = importSummary(result, translate);
  return (
    <Box role="status">
      <Alert severity={summary.severity}>
        {summary.lines.map((line) => (
          <div key={line}>{line}</div>
        ))}
      </Alert>
      {withErrors ? <RowErrors result={result} /> : null}
    </Box>
  );
}

/** The duplicate identifiers import dialog's body (spec entities §2): how many, the first ones, and the row errors. */
function Duplicates({ result }: { result: IdentifierImportResult }) {
  const translate = useTranslate();
  const format = useIdentifierFormat();
  return (
    <>
      <Summary result={result} withErrors={false} />
      <Box sx={{ maxHeight: 280, overflow: 'auto', mt: 1 }}>
        <Table size="small" stickyHeader>
          <TableHead>
            <TableRow>
              <TableCell>{translate('identifiers.import.row')}</TableCell>
              <TableCell>{translate('identifiers.import.type')}</TableCell>
              <TableCell>{translate('identifiers.import.value')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {result.duplicates.map((d) => (
              <TableRow key={d.row}>
                <TableCell>{d.row}</TableCell>
                <TableCell>{translate(`identifiers.types.${d.type}`, { _: d.type })}</TableCell>
                <TableCell>{displayValue(d.type, d.value, format)}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </Box>
      <RowErrors result={result} />
      <Typography sx={{ mt: 2 }}>{translate('identifiers.import.duplicates_question')}</Typography>
      <Typography variant="body2" color="text.secondary">
        {translate('identifiers.import.replace_hint')}
      </Typography>
    </>
  );
}

/** What the file holds: its columns, and the current list to start from when the viewer may export. */
function FileHelp({ canExport }: { canExport: boolean }) {
  const translate = useTranslate();
  const download = useIdentifierExport();
  const [busy, setBusy] = useState(false);
  return (
    <>
      <Typography variant="body2">{translate('identifiers.import.hint')}</Typography>
      <Typography variant="subtitle2" sx={{ mt: 1 }}>
        {translate('identifiers.import.columns_title')}
      </Typography>
      <List dense disablePadding>
        {IDENTIFIER_COLUMNS.map((c) => (
          <ListItem key={c} disableGutters sx={{ py: 0 }}>
            <Typography variant="body2" color={c === 'value' ? 'text.primary' : 'text.secondary'}>
              {translate(`identifiers.import.columns.${c}`)}
            </Typography>
          </ListItem>
        ))}
      </List>
      {canExport ? (
        <Box sx={{ mt: 1 }}>
          <Button
            size="small"
            startIcon={<DownloadIcon />}
            disabled={busy}
            onClick={async () => {
              setBusy(true);
              await download('xlsx').catch(() => undefined);
              setBusy(false);
            }}
          >
            {translate('identifiers.import.template')}
          </Button>
          <Typography variant="body2" color="text.secondary">
            {translate('identifiers.import.template_hint')}
          </Typography>
        </Box>
      ) : null}
    </>
  );
}

/**
 * The two-step identifier import (spec entities §4): the attempt uploads the workbook; with no
 * duplicates it is imported at once, otherwise the duplicate identifiers dialog asks whether to
 * skip them, replace them or cancel, and the continue call does so. Neither call has a time-out.
 */
export function IdentifierImportButton({ canExport }: { canExport: boolean }) {
  const translate = useTranslate();
  const alert = useAlert();
  const refresh = useRefresh();
  const dp = useDataProvider<AtriumDataProvider>();
  const titleId = useId();
  const [open, setOpen] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<IdentifierImportResult | null>(null);

  const close = () => {
    setOpen(false);
    setFile(null);
    setResult(null);
  };

  const settle = (r: IdentifierImportResult) => {
    setResult(r);
    if (changedAnything(r)) refresh();
  };

  const attempt = async () => {
    if (!file) return;
    const form = new FormData();
    form.append('file', file, file.name);
    setBusy(true);
    try {
      const body = await dp.request<{ data: IdentifierImportResult }>('/identifiers/import', {
        method: 'POST',
        body: form,
        timeout: NO_TIMEOUT_MS,
      });
      settle(body.data);
    } catch (error) {
      alert.error(error);
    } finally {
      setBusy(false);
    }
  };

  const proceed = async (action: Action) => {
    if (!result?.filepath) return;
    setBusy(true);
    try {
      const body = await dp.request<{ data: IdentifierImportResult }>('/identifiers/import/continue', {
        method: 'POST',
        body: { action, filepath: result.filepath },
        timeout: NO_TIMEOUT_MS,
      });
      settle(body.data);
    } catch (error) {
      alert.error(error);
      // The waiting file may be gone (it waits an hour): back to the upload, which starts afresh.
      setResult(null);
    } finally {
      setBusy(false);
    }
  };

  const duplicates = result?.status === 'duplicates';
  return (
    <>
      <Button size="small" startIcon={<UploadFileIcon />} onClick={() => setOpen(true)}>
        {translate('identifiers.import.action')}
      </Button>
      <Dialog
        open={open}
        // The duplicates question waits for an answer; the server keeps the file until then.
        onClose={busy || duplicates ? undefined : close}
        fullWidth
        slotProps={{ paper: { sx: { maxWidth: 600 } } }}
        aria-labelledby={titleId}
      >
        <DialogTitle id={titleId}>{translate(duplicates ? 'identifiers.import.duplicates_title' : 'identifiers.import.title')}</DialogTitle>
        <DialogContent dividers>
          {duplicates && result ? <Duplicates result={result} /> : null}
          {result && !duplicates ? <Summary result={result} /> : null}
          {result ? null : (
            <>
              <FileHelp canExport={canExport} />
              <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mt: 2 }}>
                <Button component="label" variant="outlined" startIcon={<UploadFileIcon />} disabled={busy}>
                  {translate('kit.upload')}
                  <input
                    hidden
                    type="file"
                    accept=".xlsx,.csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet,text/csv"
                    aria-label={translate('kit.upload')}
                    onChange={(e) => {
                      setFile(e.target.files?.[0] ?? null);
                      e.target.value = '';
                    }}
                  />
                </Button>
                <Typography color={file ? 'text.primary' : 'text.secondary'}>{file?.name ?? translate('kit.no_file')}</Typography>
              </Box>
            </>
          )}
          {busy ? (
            <Box sx={{ mt: 2 }}>
              <LinearProgress aria-label={translate('kit.busy')} />
              <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                {translate('identifiers.import.busy')}
              </Typography>
            </Box>
          ) : null}
        </DialogContent>
        <DialogActions>
          {duplicates ? (
            <>
              <Button onClick={() => proceed('cancel')} disabled={busy}>
                {translate('identifiers.import.cancel')}
              </Button>
              <Button onClick={() => proceed('replace')} disabled={busy}>
                {translate('identifiers.import.replace')}
              </Button>
              <Button variant="contained" onClick={() => proceed('skip')} disabled={busy}>
                {translate('identifiers.import.skip')}
              </Button>
            </>
          ) : result ? (
            <Button variant="contained" onClick={close}>
              {translate('app.close')}
            </Button>
          ) : (
            <>
              <Button onClick={close} disabled={busy}>
                {translate('form.cancel')}
              </Button>
              <Button variant="contained" onClick={attempt} disabled={busy || !file}>
                {translate('identifiers.import.upload')}
              </Button>
            </>
          )}
        </DialogActions>
      </Dialog>
    </>
  );
}
