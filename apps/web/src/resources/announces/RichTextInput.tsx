import FormatBoldIcon from '@mui/icons-material/FormatBold';
import FormatItalicIcon from '@mui/icons-material/FormatItalic';
import FormatListBulletedIcon from '@mui/icons-material/FormatListBulleted';
import FormatListNumberedIcon from '@mui/icons-material/FormatListNumbered';
import FormatQuoteIcon from '@mui/icons-material/FormatQuote';
import FormatStrikethroughIcon from '@mui/icons-material/FormatStrikethrough';
import FormatUnderlinedIcon from '@mui/icons-material/FormatUnderlined';
import InsertLinkIcon from '@mui/icons-material/InsertLink';
import RedoIcon from '@mui/icons-material/Redo';
import UndoIcon from '@mui/icons-material/Undo';
import {
  Box,
  Button,
  Divider,
  FormHelperText,
  FormLabel,
  IconButton,
  Popover,
  Stack,
  TextField,
  ToggleButton,
  Tooltip,
} from '@mui/material';
import { type Editor, EditorContent, useEditor, useEditorState } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { type ReactNode, useEffect, useId, useState } from 'react';
import { useInput, useTranslate } from 'react-admin';

/** The editor's HTML, empty when nothing is written (an empty paragraph is no text). */
export const editorHtml = (editor: Editor): string => (editor.isEmpty ? '' : editor.getHTML());

function Mark({ label, active, onClick, children }: { label: string; active: boolean; onClick: () => void; children: ReactNode }) {
  return (
    <Tooltip title={label}>
      <ToggleButton value={label} size="small" selected={active} onChange={onClick} aria-label={label} sx={{ border: 0 }}>
        {children}
      </ToggleButton>
    </Tooltip>
  );
}

function LinkButton({ editor, readOnly }: { editor: Editor; readOnly: boolean }) {
  const translate = useTranslate();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [href, setHref] = useState('');
  const label = translate('announces.editor.link');
  const apply = () => {
    const url = href.trim();
    const chain = editor.chain().focus().extendMarkRange('link');
    if (!url) chain.unsetLink().run();
    else chain.setLink({ href: /^(https?:|mailto:)/i.test(url) ? url : `https://${url}` }).run();
    setAnchor(null);
  };
  return (
    <>
      <Tooltip title={label}>
        <span>
          <ToggleButton
            value="link"
            size="small"
            selected={editor.isActive('link')}
            disabled={readOnly}
            aria-label={label}
            sx={{ border: 0 }}
            onChange={(e) => {
              setHref((editor.getAttributes('link').href as string | undefined) ?? '');
              setAnchor(e.currentTarget as HTMLElement);
            }}
          >
            <InsertLinkIcon fontSize="small" />
          </ToggleButton>
        </span>
      </Tooltip>
      <Popover open={!!anchor} anchorEl={anchor} onClose={() => setAnchor(null)} anchorOrigin={{ vertical: 'bottom', horizontal: 'left' }}>
        <Stack direction="row" spacing={1} sx={{ p: 1.5, alignItems: 'center' }}>
          <TextField
            size="small"
            autoFocus
            label={translate('announces.editor.link_address')}
            value={href}
            onChange={(e) => setHref(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                apply();
              }
            }}
          />
          <Button onClick={apply}>{translate('announces.editor.apply')}</Button>
        </Stack>
      </Popover>
    </>
  );
}

/**
 * Rich text for an announce body (Tiptap): paragraphs, headings, emphasis, lists, quotes and links,
 * written as HTML. The server keeps only these (sanitize-html), whatever is sent.
 */
export function RichTextInput({ source, label, readOnly = false }: { source: string; label: string; readOnly?: boolean }) {
  const translate = useTranslate();
  const id = useId();
  const { field, fieldState } = useInput({ source });
  const editor = useEditor({
    extensions: [StarterKit.configure({ heading: { levels: [2, 3] }, link: { openOnClick: false, autolink: true } })],
    content: typeof field.value === 'string' ? field.value : '',
    editable: !readOnly,
    editorProps: { attributes: { 'aria-labelledby': id, 'aria-multiline': 'true', role: 'textbox' } },
    onUpdate: ({ editor: e }) => field.onChange(editorHtml(e)),
    onBlur: () => field.onBlur(),
  });
  const state = useEditorState({
    editor,
    selector: ({ editor: e }) =>
      e
        ? {
            bold: e.isActive('bold'),
            italic: e.isActive('italic'),
            underline: e.isActive('underline'),
            strike: e.isActive('strike'),
            h2: e.isActive('heading', { level: 2 }),
            h3: e.isActive('heading', { level: 3 }),
            bullet: e.isActive('bulletList'),
            ordered: e.isActive('orderedList'),
            quote: e.isActive('blockquote'),
            undo: e.can().undo(),
            redo: e.can().redo(),
          }
        : null,
  });
  // A record loaded after the editor was made (the edit page), or a reset form.
  useEffect(() => {
    if (!editor) return;
    const value = typeof field.value === 'string' ? field.value : '';
    if (value !== editorHtml(editor)) editor.commands.setContent(value, { emitUpdate: false });
  }, [editor, field.value]);
  useEffect(() => {
    editor?.setEditable(!readOnly);
  }, [editor, readOnly]);
  const t = (k: string) => translate(`announces.editor.${k}`);
  const run = (fn: (e: Editor) => void) => () => editor && fn(editor);
  return (
    <Box sx={{ width: '100%', mb: 2 }}>
      <FormLabel id={id} sx={{ display: 'block', mb: 0.5 }}>
        {translate(label)}
      </FormLabel>
      <Box
        sx={{
          border: 1,
          borderColor: fieldState.error ? 'error.main' : 'divider',
          borderRadius: 1,
          '&:focus-within': { borderColor: 'primary.main', boxShadow: (th) => `0 0 0 1px ${th.palette.primary.main}` },
        }}
      >
        {!readOnly && editor && state ? (
          <Stack
            direction="row"
            role="toolbar"
            aria-label={t('toolbar')}
            sx={{ flexWrap: 'wrap', alignItems: 'center', px: 0.5, py: 0.25, borderBottom: 1, borderColor: 'divider' }}
          >
            <Mark label={t('bold')} active={state.bold} onClick={run((e) => e.chain().focus().toggleBold().run())}>
              <FormatBoldIcon fontSize="small" />
            </Mark>
            <Mark label={t('italic')} active={state.italic} onClick={run((e) => e.chain().focus().toggleItalic().run())}>
              <FormatItalicIcon fontSize="small" />
            </Mark>
            <Mark label={t('underline')} active={state.underline} onClick={run((e) => e.chain().focus().toggleUnderline().run())}>
              <FormatUnderlinedIcon fontSize="small" />
            </Mark>
            <Mark label={t('strike')} active={state.strike} onClick={run((e) => e.chain().focus().toggleStrike().run())}>
              <FormatStrikethroughIcon fontSize="small" />
            </Mark>
            <Divider orientation="vertical" flexItem sx={{ mx: 0.5 }} />
            <Mark label={t('heading')} active={state.h2} onClick={run((e) => e.chain().focus().toggleHeading({ level: 2 }).run())}>
              <Box component="span" sx={{ fontWeight: 700, fontSize: 14, width: 20 }}>
                H2
              </Box>
            </Mark>
            <Mark label={t('subheading')} active={state.h3} onClick={run((e) => e.chain().focus().toggleHeading({ level: 3 }).run())}>
              <Box component="span" sx={{ fontWeight: 700, fontSize: 13, width: 20 }}>
                H3
              </Box>
            </Mark>
            <Mark label={t('bullet_list')} active={state.bullet} onClick={run((e) => e.chain().focus().toggleBulletList().run())}>
              <FormatListBulletedIcon fontSize="small" />
            </Mark>
            <Mark label={t('ordered_list')} active={state.ordered} onClick={run((e) => e.chain().focus().toggleOrderedList().run())}>
              <FormatListNumberedIcon fontSize="small" />
            </Mark>
            <Mark label={t('quote')} active={state.quote} onClick={run((e) => e.chain().focus().toggleBlockquote().run())}>
              <FormatQuoteIcon fontSize="small" />
            </Mark>
            <LinkButton editor={editor} readOnly={readOnly} />
            <Divider orientation="vertical" flexItem sx={{ mx: 0.5 }} />
            <Tooltip title={t('undo')}>
              <span>
                <IconButton size="small" aria-label={t('undo')} disabled={!state.undo} onClick={run((e) => e.chain().focus().undo().run())}>
                  <UndoIcon fontSize="small" />
                </IconButton>
              </span>
            </Tooltip>
            <Tooltip title={t('redo')}>
              <span>
                <IconButton size="small" aria-label={t('redo')} disabled={!state.redo} onClick={run((e) => e.chain().focus().redo().run())}>
                  <RedoIcon fontSize="small" />
                </IconButton>
              </span>
            </Tooltip>
          </Stack>
        ) : null}
        <Box
          sx={{
            px: 1.5,
            '& .ProseMirror': { minHeight: readOnly ? 0 : 140, outline: 'none', py: 1 },
            '& .ProseMirror p': { my: 0.75 },
            '& .ProseMirror blockquote': { borderLeft: 3, borderColor: 'divider', pl: 2, ml: 0, color: 'text.secondary' },
            '& .ProseMirror a': { color: 'primary.main' },
          }}
        >
          <EditorContent editor={editor} />
        </Box>
      </Box>
      {fieldState.error?.message ? <FormHelperText error>{translate(fieldState.error.message)}</FormHelperText> : null}
    </Box>
  );
}
