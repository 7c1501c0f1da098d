import DownloadIcon from '@mui/icons-material/Download';
import { Button, Typography } from '@mui/material';
import { useState } from 'react';
import { RadioButtonGroupInput, useListContext, useTranslate } from 'react-admin';
import { downloadFile } from '../../app/kit/download';
import { FormDialog } from '../../app/kit/FormDialog';
import { useAlert } from '../../app/useAlert';
import { type ExportFormat, exportQuery } from './transfer';

const formatChoices = [
  { id: 'xlsx', name: 'identifiers.export.xlsx' },
  { id: 'csv', name: 'identifiers.export.csv' },
];

/** Downloads what the list shows (search, filters, sort, every page) as `identifiers.<format>`. */
export function useIdentifierExport() {
  const alert = useAlert();
  const { filterValues, sort } = useListContext();
  return async (format: ExportFormat) => {
    try {
      await downloadFile('/identifiers/export', exportQuery(filterValues, sort, format), `identifiers.${format}`);
    } catch (error) {
      alert.error(error);
      throw error;
    }
  };
}

/** The list's Export button and its export format picker (spec entities §2). */
export function IdentifierExportButton() {
  const translate = useTranslate();
  const download = useIdentifierExport();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button size="small" startIcon={<DownloadIcon />} onClick={() => setOpen(true)}>
        {translate('identifiers.export.action')}
      </Button>
      <FormDialog
        open={open}
        title={translate('identifiers.export.title')}
        record={{ format: 'xlsx' }}
        approveLabel={translate('identifiers.export.download')}
        onClose={() => setOpen(false)}
        onApprove={async (v: { format: ExportFormat }) => {
          await download(v.format);
          setOpen(false);
        }}
      >
        <RadioButtonGroupInput source="format" label="identifiers.export.format" choices={formatChoices} />
        <Typography variant="body2" color="text.secondary">
          {translate('identifiers.export.hint')}
        </Typography>
      </FormDialog>
    </>
  );
}
