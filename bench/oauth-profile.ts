/**
 * Summarises a V8 .cpuprofile: where the samples fell, by function (self and inclusive
 * time) and by area (our code, each npm package, Node internals, GC, idle).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  byArea: Array<{ area: string; ms: number; share: number }>;
  topSelf: Array<{ fn: string; ms: number; share: number }>;
  topInclusive: Array<{ fn: string; ms: number; share: number }>;
}

function area(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const ours = /\/dist\/(src\/[^/]+(?:\/[^/]+)?|projections|bench)\//.exec(url);
  if (ours) return ours[1];
  return url;
}

function where(node: ProfileNode): string {
  const { url, lineNumber } = node.callFrame;
  return url ? `${url.replace(/^.*\/(node_modules|dist)\//, '$1/').replace(/^file:\/\//, '')}:${lineNumber + 1}` : '';
}

/** A function's name and place; a native one (no script) is named with its JS caller, since names like `run` are ambiguous. */
function label(node: ProfileNode, parent?: ProfileNode): string {
  const name = node.callFrame.functionName || '(anonymous)';
  const at = where(node);
  if (at) return `${name} ${at}`;
  if (name.startsWith('(') || !parent) return name;
  return `${name} [native, called from ${parent.callFrame.functionName || '(anonymous)'} ${where(parent)}]`;
}

export function summarizeProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const areas = new Map<string, number>();
  const selfByFn = new Map<string, number>();
  const inclusiveByFn = new Map<string, number>();
  // Inclusive time: a node's own time counts for every distinct function on its stack.
  const root = profile.nodes[0];
  const walk = (node: ProfileNode, stack: Map<string, number>, parent?: ProfileNode): void => {
    const fn = label(node, parent);
    stack.set(fn, (stack.get(fn) ?? 0) + 1);
    const self = selfUs.get(node.id) ?? 0;
    if (self) {
      const a = area(node.callFrame.url, node.callFrame.functionName);
      areas.set(a, (areas.get(a) ?? 0) + self);
      selfByFn.set(fn, (selfByFn.get(fn) ?? 0) + self);
      for (const f of stack.keys()) inclusiveByFn.set(f, (inclusiveByFn.get(f) ?? 0) + self);
    }
    for (const child of node.children ?? []) walk(byId.get(child)!, stack, node);
    const n = stack.get(fn)! - 1;
    if (n) stack.set(fn, n);
    else stack.delete(fn);
  };
  walk(root, new Map());
  const rows = (m: Map<string, number>, key: 'area' | 'fn') =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => ({ [key]: k, ms: us / 1000, share: total ? us / total : 0 }));
  return {
    totalMs: total / 1000,
    byArea: rows(areas, 'area') as ProfileSummary['byArea'],
    topSelf: rows(selfByFn, 'fn') as ProfileSummary['topSelf'],
    topInclusive: rows(
      new Map([...inclusiveByFn].filter(([fn]) => !fn.startsWith('(root)') && !fn.startsWith('(program)') && !fn.startsWith('(idle)'))),
      'fn',
    ) as ProfileSummary['topInclusive'],
  };
}

export function formatSummary(s: ProfileSummary, lines = 15): string {
  const pct = (x: number) => `${(x * 100).toFixed(1).padStart(5)}%`;
  const out = [`  sampled ${s.totalMs.toFixed(0)} ms`, '  by area (self time):'];
  for (const r of s.byArea.slice(0, 12)) out.push(`    ${pct(r.share)}  ${r.area}`);
  out.push('  top functions (self time):');
  for (const r of s.topSelf.slice(0, lines)) out.push(`    ${pct(r.share)}  ${r.fn}`);
  out.push('  top functions (inclusive time):');
  for (const r of s.topInclusive.slice(0, lines)) out.push(`    ${pct(r.share)}  ${r.fn}`);
  return out.join('\n');
}
