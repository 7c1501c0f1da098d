import type { GeneratedGroup } from '@atrium/contract';
import { maxLength, range, required } from '@atrium/contract';
import { Alert, Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import { useState } from 'react';
import {
  ArrayInput,
  BooleanInput,
  Form,
  FormDataConsumer,
  NumberInput,
  SelectInput,
  SimpleFormIterator,
  SimpleFormIteratorClasses,
  TextInput,
  useDataProvider,
  useRefresh,
  useSimpleFormIterator,
  useTranslate,
} from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { GROUPS_API, GroupInput } from '../../app/kit/GroupPicker';
import { useDomainTypes } from '../../app/kit/StructureDialogs';
import { useActions } from '../../app/kit/useActions';
import { useAlert } from '../../app/useAlert';
import { generateBody } from './transform';

interface Generated {
  parent_id: number | null;
  total: number;
  domains: GeneratedGroup[];
}

const PREVIEW_LIMIT = 300;

/** A new level's parameters: one group, numbered from 1, the number being its logical address. */
const NEW_LEVEL = { domain_type_id: null, count: 1, prefix: '', logic_number: true, from: 1, except: '' };

// The iterator renders a custom add button as it is: the button adds the level itself, with the first level's defaults.
function AddLevelButton() {
  const translate = useTranslate();
  const { add } = useSimpleFormIterator();
  return (
    <Button size="small" onClick={() => add(NEW_LEVEL)}>
      {translate('groups.generate.add_level')}
    </Button>
  );
}

/** A grid cell over `n` of the level grid's six columns (one column on a phone). */
const span = (n: number) => ({ gridColumn: { xs: '1 / -1', sm: `span ${n}` } });

// A level's inputs on a six-column grid: type and prefix, count and first number on one line; the
// skipped numbers and the three switches on the next two. Inputs are of one height (NumberInput is
// small by default) and keep no room for a helper text unless there is an error.
const LEVEL_SX = {
  [`& .${SimpleFormIteratorClasses.line}`]: { py: 1.5, alignItems: 'flex-start' },
  [`& .${SimpleFormIteratorClasses.form}`]: {
    flex: 1,
    display: 'grid',
    gridTemplateColumns: { xs: '1fr', sm: 'repeat(6, minmax(0, 1fr))' },
    columnGap: 2,
    rowGap: 1.5,
    alignItems: 'center',
  },
  [`& .${SimpleFormIteratorClasses.form} .MuiFormControl-root`]: { m: 0 },
  // A switch's label may use the whole cell (MUI keeps 16 px after it), so the longest stays on one line.
  [`& .${SimpleFormIteratorClasses.form} .MuiFormControlLabel-root`]: { mr: 0 },
} as const;

/** Depth-first lines of the preview, at most `limit`. */
function previewLines(domains: GeneratedGroup[], limit: number): { key: string; depth: number; text: string }[] {
  const out: { key: string; depth: number; text: string }[] = [];
  const walk = (list: GeneratedGroup[], depth: number, prefix: string) => {
    list.forEach((g, i) => {
      if (out.length >= limit) return;
      const key = `${prefix}.${i}`;
      out.push({ key, depth, text: g.logic_address === null ? g.name : `${g.name} (${g.logic_address})` });
      walk(g.children, depth + 1, key);
    });
  };
  walk(domains, 0, '');
  return out;
}

/**
 * Generate groups (spec entities §7): under a parent (or at the root), levels of a domain type with
 * a count, a prefix, numbering options; the server answers a preview, which is then saved.
 */
export function GenerateDialog({ open, onClose, parentId }: { open: boolean; onClose: () => void; parentId?: number | null }) {
  const translate = useTranslate();
  const { can } = useActions();
  const alert = useAlert();
  const refresh = useRefresh();
  const dp = useDataProvider<AtriumDataProvider>();
  const types = useDomainTypes();
  const [preview, setPreview] = useState<Generated | null>(null);
  const [busy, setBusy] = useState(false);

  const close = () => {
    setPreview(null);
    onClose();
  };

  const generate = async (values: Record<string, unknown>) => {
    setBusy(true);
    try {
      const body = await dp.request<{ data: Generated }>(`/${GROUPS_API}/generate`, { method: 'POST', body: generateBody(values) });
      setPreview(body.data);
    } catch (error) {
      alert.error(error);
    } finally {
      setBusy(false);
    }
  };

  const save = async () => {
    if (!preview) return;
    setBusy(true);
    try {
      const body = await dp.request<{ data: { created: number } }>(`/${GROUPS_API}/generate/save`, {
        method: 'POST',
        body: { parent_id: preview.parent_id, domains: preview.domains },
      });
      alert.success('groups.generate.created', { smart_count: body.data.created });
      refresh();
      close();
    } catch (error) {
      alert.error(error);
    } finally {
      setBusy(false);
    }
  };

  const lines = preview ? previewLines(preview.domains, PREVIEW_LIMIT) : [];

  return (
    <Dialog
      open={open}
      onClose={busy ? undefined : close}
      fullWidth
      slotProps={{ paper: { sx: { maxWidth: 900 } } }}
      aria-labelledby="generate-title"
    >
      <Form
        record={{
          parent_id: parentId ?? null,
          root_level_only: false,
          levels: [NEW_LEVEL],
        }}
        onSubmit={generate}
      >
        <DialogTitle id="generate-title">
          {preview ? translate('groups.generate.preview_title', { smart_count: preview.total }) : translate('groups.generate.title')}
        </DialogTitle>
        <DialogContent dividers>
          <Box sx={{ display: preview ? 'none' : 'block' }}>
            {/* Generating at the root creates root groups: only with create-root (action-rules.ts). */}
            {can('groups.create_root') ? <BooleanInput source="root_level_only" label="groups.generate.root_level_only" /> : null}
            <FormDataConsumer>
              {({ formData }) =>
                formData.root_level_only ? null : (
                  <GroupInput source="parent_id" label="groups.generate.parent" validate={required} fullWidth />
                )
              }
            </FormDataConsumer>
            <Typography variant="subtitle1">{translate('groups.generate.levels')}</Typography>
            <ArrayInput source="levels" label={false}>
              <SimpleFormIterator inline disableReordering addButton={<AddLevelButton />} sx={LEVEL_SX}>
                <SelectInput
                  source="domain_type_id"
                  label="groups.generate.type"
                  choices={types.data ?? []}
                  validate={required}
                  helperText={false}
                  fullWidth
                  sx={span(2)}
                />
                <TextInput
                  source="prefix"
                  label="groups.generate.prefix"
                  validate={maxLength(64)}
                  helperText={false}
                  fullWidth
                  sx={span(2)}
                />
                <NumberInput
                  source="count"
                  label="groups.generate.count"
                  validate={[required, range(1, 1000)]}
                  size="medium"
                  helperText={false}
                  fullWidth
                />
                <NumberInput
                  source="from"
                  label="groups.generate.from"
                  validate={range(0, 999_999)}
                  size="medium"
                  helperText={false}
                  fullWidth
                />
                <TextInput source="except" label="groups.generate.except" helperText={false} fullWidth sx={span(3)} />
                <BooleanInput source="logic_number" label="groups.generate.logic_number" helperText={false} sx={span(3)} />
                <BooleanInput source="is_in_youngest_num" label="groups.generate.is_in_youngest_num" helperText={false} sx={span(3)} />
                <BooleanInput
                  source="is_start_youngest_num"
                  label="groups.generate.is_start_youngest_num"
                  helperText={false}
                  sx={span(3)}
                />
              </SimpleFormIterator>
            </ArrayInput>
          </Box>
          {preview ? (
            <Box sx={{ maxHeight: 420, overflow: 'auto', fontFamily: 'monospace', fontSize: 13 }}>
              {lines.map((l) => (
                <div key={l.key} style={{ paddingLeft: l.depth * 20 }}>
                  {l.text}
                </div>
              ))}
              {preview.total > lines.length ? (
                <Alert severity="info" sx={{ mt: 1 }}>
                  {translate('groups.generate.more', { smart_count: preview.total - lines.length })}
                </Alert>
              ) : null}
            </Box>
          ) : null}
        </DialogContent>
        <DialogActions>
          <Button onClick={close} disabled={busy}>
            {translate('form.cancel')}
          </Button>
          {preview ? (
            <>
              <Button onClick={() => setPreview(null)} disabled={busy}>
                {translate('groups.generate.back')}
              </Button>
              <Button variant="contained" onClick={save} disabled={busy}>
                {translate('groups.generate.save')}
              </Button>
            </>
          ) : (
            <Button type="submit" variant="contained" disabled={busy}>
              {translate('groups.generate.preview')}
            </Button>
          )}
        </DialogActions>
      </Form>
    </Dialog>
  );
}
