import sanitizeHtml from 'sanitize-html';

/**
 * What operator-written HTML may hold (an announce body, the terms and conditions): the formatting the console's editor writes (paragraphs, headings,
 * emphasis, lists, quotes, code, links, alignment), nothing that runs, loads or hides anything.
 */
const RULES: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'h1',
    'h2',
    'h3',
    'h4',
    'strong',
    'b',
    'em',
    'i',
    'u',
    's',
    'ul',
    'ol',
    'li',
    'blockquote',
    'code',
    'pre',
    'hr',
    'a',
    'span',
  ],
  allowedAttributes: { a: ['href', 'target', 'rel'], p: ['style'], h1: ['style'], h2: ['style'], h3: ['style'], h4: ['style'] },
  allowedStyles: { '*': { 'text-align': [/^(left|right|center|justify)$/] } },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowProtocolRelative: false,
  transformTags: { a: sanitizeHtml.simpleTransform('a', { target: '_blank', rel: 'noopener noreferrer' }) },
};

/** Operator-written HTML as stored and shown: safe. */
export function safeHtml(html: string): string {
  return sanitizeHtml(html, RULES).trim();
}
