// Summarises V8 CPU profiles (node --cpu-prof): where a thread spent its time, by function (self
// time: the samples taken while that function itself ran) and by source file or package.
//   npx tsx bench/cpuprofile.ts <file.cpuprofile | directory> [top]
// (a directory with the SIP bench's windows.json: each profile cut to the bench's loads)
// The SIP bench calls summariseProfiles with the windows of its loads (BENCH_CPU_PROF), so start-up
// and seeding do not dilute what the loads cost.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  /** CLOCK_MONOTONIC, µs. */
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Slice {
  /** Sampled time in the window, ms. */
  totalMs: number;
  /** Of which the thread ran something (not idle), ms. */
  busyMs: number;
  functions: { name: string; ms: number }[];
  files: { name: string; ms: number }[];
  /** Per function, the call paths (callers, nearest first) its self time came through, largest first. */
  paths: Map<string, { name: string; ms: number }[]>;
}

/** How many callers a call path shows, and for how many of the top functions. */
const PATH_DEPTH = 6;
const PATHS_SHOWN = 10;

/** A source address as short as it stays clear: a package by name, our files from the repository root, Node's own as node:. */
export function sourceOf(url: string): string {
  if (!url) return '(native)';
  if (url.startsWith('node:')) return url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  const ours = /\/(apps|packages|bench|tools)\/(.*)$/.exec(url);
  return ours ? `${ours[1]}/${ours[2]}` : url.replace(/^file:\/\//, '');
}

/** Self time by function and by file of the samples between `from` and `to` (µs, the profile's clock). */
export function slice(profile: CpuProfile, from = -Infinity, to = Infinity): Slice {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const label = ({ functionName, url, lineNumber }: CallFrame) =>
    url ? `${functionName || '(anonymous)'} ${sourceOf(url)}:${lineNumber + 1}` : functionName || '(anonymous)';
  const selfByNode = new Map<number, number>();
  const fn = new Map<string, number>();
  const file = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < from || t > to) continue;
    // A sample stands for the time until the next one.
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const node = byId.get(profile.samples[i] as number);
    if (!node || dt <= 0) continue;
    totalUs += dt;
    const { functionName, url } = node.callFrame;
    if (functionName === '(idle)') {
      idleUs += dt;
      continue;
    }
    const name = label(node.callFrame);
    fn.set(name, (fn.get(name) ?? 0) + dt);
    const fileKey = url ? sourceOf(url) : functionName;
    file.set(fileKey, (file.get(fileKey) ?? 0) + dt);
    selfByNode.set(node.id, (selfByNode.get(node.id) ?? 0) + dt);
  }
  const sorted = (m: Map<string, number>) => [...m.entries()].map(([name, us]) => ({ name, ms: us / 1000 })).sort((a, b) => b.ms - a.ms);
  const pathsUs = new Map<string, Map<string, number>>();
  for (const [id, us] of selfByNode) {
    const callers: string[] = [];
    for (let p = parentOf.get(id); p !== undefined && callers.length < PATH_DEPTH; p = parentOf.get(p)) {
      callers.push(label((byId.get(p) as ProfileNode).callFrame));
    }
    const name = label((byId.get(id) as ProfileNode).callFrame);
    const m = pathsUs.get(name) ?? new Map<string, number>();
    const key = callers.join(' < ');
    m.set(key, (m.get(key) ?? 0) + us);
    pathsUs.set(name, m);
  }
  const paths = new Map([...pathsUs].map(([name, m]) => [name, sorted(m)]));
  return { totalMs: totalUs / 1000, busyMs: (totalUs - idleUs) / 1000, functions: sorted(fn), files: sorted(file), paths };
}

export function printSlice(title: string, s: Slice, top = 25): void {
  const pct = (x: number) => `${((100 * x) / Math.max(s.totalMs, 1e-9)).toFixed(1).padStart(5)} %`;
  console.log(`\n${title}: ${(s.totalMs / 1000).toFixed(1)} s sampled, busy ${pct(s.busyMs).trim()} (${(s.busyMs / 1000).toFixed(1)} s)`);
  console.log('  self time by function');
  for (const f of s.functions.slice(0, top)) console.log(`  ${f.ms.toFixed(0).padStart(7)} ms ${pct(f.ms)}  ${f.name}`);
  console.log('  how the first of them were reached (callers, nearest first)');
  for (const f of s.functions.slice(0, PATHS_SHOWN)) {
    console.log(`  ${f.name}`);
    for (const p of (s.paths.get(f.name) ?? []).slice(0, 2)) console.log(`    ${p.ms.toFixed(0).padStart(7)} ms < ${p.name}`);
  }
  console.log('  self time by file or package');
  for (const f of s.files.slice(0, Math.ceil(top / 2))) console.log(`  ${f.ms.toFixed(0).padStart(7)} ms ${pct(f.ms)}  ${f.name}`);
}

const profilesIn = (where: string): string[] =>
  statSync(where).isDirectory()
    ? readdirSync(where)
        .filter((f) => f.endsWith('.cpuprofile'))
        .sort()
        .map((f) => path.join(where, f))
    : [where];

/**
 * Every profile in `dir` that overlaps one of `windows` (one per thread: a worker thread writes its
 * own), summarised per window.
 */
export function summariseProfiles(dir: string, windows: { name: string; from: number; to: number }[], top = 25): void {
  for (const file of profilesIn(dir)) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const overlapping = windows.filter((w) => w.from < profile.endTime && w.to > profile.startTime);
    for (const w of overlapping) printSlice(`${path.basename(file)}, during ${w.name}`, slice(profile, w.from, w.to), top);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const where = process.argv[2];
  if (!where) {
    console.error('usage: npx tsx bench/cpuprofile.ts <file.cpuprofile | directory> [top]');
    process.exit(2);
  }
  const top = Number(process.argv[3] ?? 25);
  // A directory the SIP bench profiled into has the windows of its loads beside the profiles.
  const windows = path.join(where, 'windows.json');
  if (existsSync(windows)) summariseProfiles(where, JSON.parse(readFileSync(windows, 'utf8')), top);
  else
    for (const file of profilesIn(where)) printSlice(path.basename(file), slice(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile), top);
}
