// Signs a licence for one deployment: `npm run license -- --customer "Tower A" --days 365 --sip 50 --out tower-a.json`.
// The issuer's private key comes from --key (a PEM file); without it, the development issuer's key
// (dev-issuer.pem), which only servers without LICENSE_PUBLIC_KEY accept. `--new-key <file>` makes an
// issuer key pair and prints the public key to give servers as LICENSE_PUBLIC_KEY.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fullLicenseInfo, LICENSE_FEATURES, type LicenseFeature, type LicensePayload, UNLIMITED_PERIOD } from '@atrium/contract';
import { signLicense } from '../../apps/server/src/modules/licenses/license-file.js';

const HELP = `Usage: npm run license -- [options]

  --customer <name>       who the licence is for (required)
  --instance <id>         bind to a deployment: its instance id (Licences page); default: any
  --project <uid>         bind to a project: its uid (Licences page); default: any project
  --from <YYYY-MM-DD>     first day (default: today); --to <YYYY-MM-DD> or --days <n> for the end
                          (default: unlimited)
  --grace <days>          days the features stay on after the end (default 30)
  --sip <n>  --mobile <n>  --ukey2 <n>   counts (default: unlimited)
  --without <f1,f2>       features to leave off: ${Object.keys(LICENSE_FEATURES).join(', ')}
  --key <file.pem>        the issuer's Ed25519 private key (default: the development issuer's)
  --out <file>            where to write the licence (default: stdout)
  --new-key <file.pem>    make an issuer key pair instead: writes the private key, prints the public key
`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${HELP}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    customer: { type: 'string' },
    instance: { type: 'string' },
    project: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    days: { type: 'string' },
    grace: { type: 'string', default: '30' },
    sip: { type: 'string' },
    mobile: { type: 'string' },
    ukey2: { type: 'string' },
    without: { type: 'string' },
    key: { type: 'string' },
    out: { type: 'string' },
    'new-key': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

if (values['new-key']) {
  const pair = generateKeyPairSync('ed25519');
  writeFileSync(values['new-key'], pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  const publicKey = pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  process.stdout.write(`Private key written to ${values['new-key']} (keep it off the servers).\nLICENSE_PUBLIC_KEY=${publicKey}\n`);
  process.exit(0);
}

const count = (name: string, v: string | undefined): number | null => {
  if (v === undefined) return null;
  if (!/^\d+$/.test(v)) fail(`--${name} must be a whole number`);
  return Number(v);
};
const day = (name: string, v: string): number => {
  const ms = Date.parse(`${v}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(ms)) fail(`--${name} must be a date YYYY-MM-DD`);
  return ms / 1000;
};

if (!values.customer) fail('--customer is required');
const from = values.from ? day('from', values.from) : Math.floor(Date.now() / 86_400_000) * 86_400;
let to: number = UNLIMITED_PERIOD.to;
if (values.to) to = day('to', values.to) + 86_399;
else if (values.days) to = from + (count('days', values.days) ?? 0) * 86_400 - 1;
if (to < from) fail('the end is before the start');

const features = fullLicenseInfo();
features.sip.license_count = count('sip', values.sip);
features.mobile_app.license_count = count('mobile', values.mobile);
features.ukey2.license_count = count('ukey2', values.ukey2);
for (const f of (values.without ?? '').split(',').filter(Boolean)) {
  if (!(f in LICENSE_FEATURES)) fail(`unknown feature ${f}`);
  const [block, flag] = LICENSE_FEATURES[f as LicenseFeature];
  (features[block] as Record<string, unknown>)[flag] = false;
}

const payload: LicensePayload = {
  format: 1,
  id: randomUUID(),
  customer: values.customer,
  instance_id: values.instance ?? null,
  project_uid: values.project ?? null,
  issued_at: new Date().toISOString(),
  period: { from, to },
  grace_days: count('grace', values.grace) ?? 30,
  features,
};
const key = readFileSync(values.key ?? path.join(import.meta.dirname, 'dev-issuer.pem'), 'utf8');
const text = `${JSON.stringify(signLicense(payload, key), null, 2)}\n`;
if (values.out) {
  writeFileSync(values.out, text);
  process.stderr.write(`Licence ${payload.id} for ${payload.customer} written to ${values.out}\n`);
} else process.stdout.write(text);
