/** Inserts `{name}` into `text` at the cursor (`start`…`end` replaced); answers the new text and cursor. */
export function insertPlaceholder(text: string, name: string, start = text.length, end = start): { text: string; cursor: number } {
  const mark = `{${name}}`;
  const a = Math.max(0, Math.min(start, text.length));
  const b = Math.max(a, Math.min(end, text.length));
  return { text: text.slice(0, a) + mark + text.slice(b), cursor: a + mark.length };
}
