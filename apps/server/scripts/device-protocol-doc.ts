import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  DEVICE_EVENT_TYPES,
  DEVICE_MESSAGE_MAX_BYTES,
  DEVICE_MESSAGE_SCHEMAS,
  DEVICE_MODELS,
  DEVICE_TASK_ORIGINS,
  DEVICE_TASK_TYPES,
  DEVICE_TOPICS,
  type DeviceTopicLeaf,
  EventMessageSchema,
  TASK_PAYLOAD_SCHEMAS,
  TaskMessageSchema,
} from '@atrium/contract';
import { z } from 'zod';

/**
 * Writes the generated sections of docs/device-protocol.md from the contract: the model catalogue,
 * the event types, the fields of every message and which API calls create which tasks. Each sits
 * between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`; everything else on the page is
 * prose and left alone. `--check` changes nothing and fails when the page differs from the contract
 * (test/device-protocol-doc.test.ts does the same).
 *
 *   cd apps/server && npx tsx scripts/device-protocol-doc.ts [--check]
 */

export const DEVICE_PROTOCOL_PAGE = path.resolve(import.meta.dirname, '../../../docs/device-protocol.md');

type Json = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  items?: Json;
  properties?: Record<string, Json>;
  required?: string[];
  anyOf?: Json[];
  oneOf?: Json[];
  additionalProperties?: Json | boolean;
};

const jsonSchema = (s: z.ZodType): Json => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Json;
const code = (v: unknown) => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``;

/** A field's type in a few words: what a device maker must send. */
function typeOf(j: Json): string {
  const alternatives = j.anyOf ?? j.oneOf;
  if (alternatives) return alternatives.map(typeOf).join(' or ');
  if (j.const !== undefined) return code(j.const);
  if (j.enum) return `one of ${j.enum.map(code).join(', ')}`;
  const type = Array.isArray(j.type) ? j.type.join(' or ') : j.type;
  switch (type) {
    case 'string': {
      if (j.format === 'date-time') return 'time (ISO-8601 with offset)';
      if (j.format) return j.format;
      if (j.pattern === '^\\d{4}-\\d{2}-\\d{2}$') return 'date (YYYY-MM-DD)';
      const max = j.maxLength !== undefined ? `, at most ${j.maxLength} characters` : '';
      return j.minLength ? `text${max}` : `string${max}`;
    }
    case 'integer':
    case 'number': {
      if (type === 'integer' && j.exclusiveMinimum !== undefined)
        return typeOf({ ...j, exclusiveMinimum: undefined, minimum: j.exclusiveMinimum + 1 });
      const range =
        j.minimum !== undefined && j.maximum !== undefined
          ? ` ${j.minimum}–${j.maximum}`
          : j.minimum !== undefined
            ? ` ≥ ${j.minimum}`
            : j.maximum !== undefined
              ? ` ≤ ${j.maximum}`
              : '';
      return `${type}${range}`;
    }
    case 'array':
      return `list${j.maxItems !== undefined ? ` (at most ${j.maxItems})` : ''} of ${j.items ? typeOf(j.items) : 'anything'}`;
    case 'object':
      return 'object';
    case 'null':
      return '`null`';
    case undefined:
      return 'any JSON value';
    default:
      return type;
  }
}

/** The object schema inside a field, if any (through `null` alternatives). */
const objectOf = (f: Json): Json | undefined => (f.properties ? f : (f.anyOf ?? f.oneOf)?.find((a) => a.properties !== undefined));

/**
 * One row per field of an object schema: its name, whether a device must send it, its type; the
 * fields of a nested object (`a.b`) or of a list's objects (`a[].b`) follow their parent, required
 * when the parent is there.
 */
function fieldRows(j: Json, prefix = ''): string[] {
  const required = new Set(j.required ?? []);
  return Object.entries(j.properties ?? {}).flatMap(([name, f]) => {
    const row = `| \`${prefix}${name}\` | ${required.has(name) ? '**yes**' : 'no'} | ${typeOf(f).replace(/\|/g, '\\|')} |`;
    const inner = objectOf(f);
    if (inner) return [row, ...fieldRows(inner, `${prefix}${name}.`)];
    const items = f.type === 'array' && f.items ? objectOf(f.items) : undefined;
    return items ? [row, ...fieldRows(items, `${prefix}${name}[].`)] : [row];
  });
}

const FIELDS_HEAD = ['| field | required | type |', '|---|---|---|'];

function modelsSection(): string {
  const yes = (b: boolean) => (b ? 'yes' : '—');
  return [
    '| type | model | locks | lift relays | face recognition | SIP | display |',
    '|---|---|---|---|---|---|---|',
    ...DEVICE_MODELS.map(
      (m) =>
        `| \`${m.type}\` | \`${m.model}\` | ${m.capabilities.locks} | ${m.capabilities.lift_relays} | ${yes(m.capabilities.face_recognition)} | ${yes(m.capabilities.sip)} | ${yes(m.capabilities.display)} |`,
    ),
  ].join('\n');
}

function eventsSection(): string {
  const options = (jsonSchema(EventMessageSchema).anyOf ?? jsonSchema(EventMessageSchema).oneOf ?? []) as Json[];
  const rows = DEVICE_EVENT_TYPES.map((type) => {
    const j = options.find((o) => o.properties?.type?.const === type);
    if (!j) throw new Error(`event type ${type} has no schema`);
    const data = j.properties?.data ?? {};
    const dataRequired = new Set(data.required ?? []);
    const fields = Object.entries(data.properties ?? {})
      .map(([name, f]) => `\`${name}\`${dataRequired.has(name) ? ' (required)' : ''}: ${typeOf(f)}`)
      .join('; ');
    const id = j.properties?.identifier;
    const identifier = (j.required ?? []).includes('identifier')
      ? 'required'
      : id?.type === 'null'
        ? 'none (`null` or absent)'
        : id
          ? 'optional'
          : '—';
    return `| \`${type}\` | ${identifier} | ${(j.required ?? []).includes('data') ? 'required' : 'optional'} | ${fields.replace(/\|/g, '\\|') || '—'} |`;
  });
  return ['| type | `identifier` | `data` | fields of `data` |', '|---|---|---|---|', ...rows].join('\n');
}

function messagesSection(): string {
  const out: string[] = [];
  for (const leaf of Object.values(DEVICE_TOPICS) as DeviceTopicLeaf[]) {
    out.push(`**\`${leaf}\`** (at most ${Math.round(DEVICE_MESSAGE_MAX_BYTES[leaf] / 1024)} KiB)`, '');
    if (leaf === 'tasks') {
      // The envelope is the same for every type: the first one's, with the type and payload named generally.
      const envelope = ((jsonSchema(TaskMessageSchema).anyOf ?? jsonSchema(TaskMessageSchema).oneOf ?? []) as Json[])[0] ?? {};
      const rows = fieldRows({ ...envelope, properties: { ...envelope.properties, payload: { type: 'object' } } }).map((r) =>
        r.startsWith('| `type` |')
          ? `| \`type\` | **yes** | one of ${DEVICE_TASK_TYPES.map(code).join(', ')} |`
          : r.startsWith('| `payload` |')
            ? '| `payload` | **yes** | object: the fields of its type, below |'
            : r,
      );
      out.push(...FIELDS_HEAD, ...rows, '');
      for (const type of DEVICE_TASK_TYPES) {
        out.push(`\`${type}\` payload:`, '', ...FIELDS_HEAD, ...fieldRows(jsonSchema(TASK_PAYLOAD_SCHEMAS[type])), '');
      }
      continue;
    }
    const j = jsonSchema(DEVICE_MESSAGE_SCHEMAS[leaf]);
    const variants = j.anyOf ?? j.oneOf;
    if (!variants) {
      out.push(...FIELDS_HEAD, ...fieldRows(j), '');
      continue;
    }
    // A union: one table per variant, named by its discriminating constant.
    for (const v of variants) {
      const tag = Object.entries(v.properties ?? {}).find(([, f]) => f.const !== undefined);
      if (leaf === 'events' && tag) continue; // the event types have their own table
      out.push(tag ? `with \`${tag[0]}\` = ${code(tag[1].const)}:` : 'one of:', '', ...FIELDS_HEAD, ...fieldRows(v), '');
    }
    if (leaf === 'events') {
      out.push(...FIELDS_HEAD, ...fieldRows(variants[0] as Json).filter((r) => /`(event_id|time|type)`/.test(r)), '');
      out.push('with `identifier` and `data` as the event type asks (table above).', '');
    }
  }
  return out.join('\n').trimEnd();
}

function originsSection(): string {
  return [
    '| task | API calls that create it | also |',
    '|---|---|---|',
    ...DEVICE_TASK_TYPES.map((type) => {
      const o = DEVICE_TASK_ORIGINS[type];
      return `| \`${type}\` | ${o.calls.map((c) => `\`${c}\``).join('<br>') || '—'} | ${o.also ?? '—'} |`;
    }),
  ].join('\n');
}

/** The generated sections, by marker name. */
export function deviceProtocolSections(): Record<string, string> {
  return { models: modelsSection(), events: eventsSection(), messages: messagesSection(), 'task-origins': originsSection() };
}

/** The page with every generated section written from the contract; throws when a marker is missing. */
export function renderDeviceProtocolPage(page: string): string {
  let out = page;
  for (const [name, body] of Object.entries(deviceProtocolSections())) {
    const open = `<!-- generated:${name} -->`;
    const close = `<!-- /generated:${name} -->`;
    const from = out.indexOf(open);
    const to = out.indexOf(close);
    if (from < 0 || to < from) throw new Error(`docs/device-protocol.md has no ${open} … ${close} section`);
    out = `${out.slice(0, from + open.length)}\n${body}\n${out.slice(to)}`;
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const page = readFileSync(DEVICE_PROTOCOL_PAGE, 'utf8');
  const next = renderDeviceProtocolPage(page);
  if (process.argv.includes('--check')) {
    if (next !== page) {
      console.error('docs/device-protocol.md differs from the contract: run `npx tsx scripts/device-protocol-doc.ts` in apps/server');
      process.exit(1);
    }
  } else if (next !== page) {
    writeFileSync(DEVICE_PROTOCOL_PAGE, next);
    console.log('docs/device-protocol.md: generated sections written');
  }
}
