// The package registry reachable here has only the Linux builds of Biome's CLI, but Biome's
// manifest lists every platform's build as optional. npm then writes a lockfile whose edges point
// at packages it could not resolve, and `npm ci` refuses it. Dropping the unresolvable optional
// edges from the lockfile keeps `npm ci` working; run this after any `npm install`.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const file = path.resolve(import.meta.dirname, '../package-lock.json');
const lock = JSON.parse(readFileSync(file, 'utf8'));
let dropped = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  if (!entry.optionalDependencies) continue;
  for (const dep of Object.keys(entry.optionalDependencies)) {
    const nested = `${key}/node_modules/${dep}`;
    if (!lock.packages[`node_modules/${dep}`] && !lock.packages[nested]) {
      delete entry.optionalDependencies[dep];
      dropped++;
    }
  }
}
if (dropped) {
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`package-lock.json: dropped ${dropped} optional dependencies the registry does not have`);
}
