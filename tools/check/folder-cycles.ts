/**
 * `npm run check`'s folder rule: no cycle among the folders of `src/` (e.g. src/dumps → src/http →
 * src/dumps). dependency-cruiser's `circular` sees modules only, so two folders can lean on each
 * other through different modules without any module cycle; this check collapses every module to
 * its `src/<folder>` (a file at the root of `src/` stands for itself) and fails on any cycle of
 * that graph, printing it with one import that makes each of its arrows.
 *
 * It reads the imports itself, on purpose sharing nothing with the code it checks: static
 * `import … from`, `export … from`, bare `import '…'`, `import('…')` with a literal, type-only
 * imports included (a cycle through types still ties two folders together). Only relative
 * specifiers can point inside `src/`.
 *
 * Usage: `tsx tools/check/folder-cycles.ts [root]` (root: the project, default the working
 * directory). Exit 0 and one line when there is no cycle; exit 1 and each cycle otherwise.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { sourceFiles } from './source-files.js';

/** One import of a module by another, by paths relative to the project root. */
interface ModuleImport {
  from: string;
  to: string;
}


/** The specifiers a module imports: at the start of a statement, so that comments do not count. */
function specifiersOf(text: string): string[] {
  const patterns = [
    /^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  const specifiers: string[] = [];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) specifiers.push(match[1]!);
  return specifiers;
}

/** The file a relative specifier names (`./x.js` is `./x.ts` in the source), or null. */
function resolveSpecifier(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(fromFile), specifier);
  const stem = base.replace(/\.(js|mjs|cjs|jsx)$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.mts`, `${stem}.cts`, `${stem}.tsx`, join(base, 'index.ts')];
  for (const candidate of candidates) if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return null;
}

/** The imports among the modules of `src/` under `root`. */
export function moduleImports(root: string): ModuleImport[] {
  const src = join(root, 'src');
  const imports: ModuleImport[] = [];
  for (const file of sourceFiles(src)) {
    for (const specifier of specifiersOf(readFileSync(file, 'utf8'))) {
      const target = resolveSpecifier(file, specifier);
      if (target === null || !target.startsWith(src + sep)) continue;
      imports.push({ from: relative(root, file).split(sep).join('/'), to: relative(root, target).split(sep).join('/') });
    }
  }
  return imports;
}

/** `src/<folder>` of a module, or the module itself when it sits at the root of `src/`. */
export function folderOf(module: string): string {
  const parts = module.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : module;
}

/** The folder graph: for each arrow between two folders, one import that makes it. */
function folderGraph(imports: ModuleImport[]): Map<string, Map<string, ModuleImport>> {
  const graph = new Map<string, Map<string, ModuleImport>>();
  for (const edge of imports) {
    const from = folderOf(edge.from);
    const to = folderOf(edge.to);
    if (from === to) continue;
    const arrows = graph.get(from) ?? new Map<string, ModuleImport>();
    graph.set(from, arrows);
    if (!arrows.has(to)) arrows.set(to, edge);
  }
  return graph;
}

/** The strongly connected components of more than one folder (Tarjan). */
function tangledGroups(graph: Map<string, Map<string, ModuleImport>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of [...(graph.get(node)?.keys() ?? [])].sort()) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return groups;
}

/** A shortest cycle through `start` inside `group`, as the folders in order (start repeated last). */
function cycleThrough(graph: Map<string, Map<string, ModuleImport>>, group: string[], start: string): string[] {
  const members = new Set(group);
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const to of [...(graph.get(node)?.keys() ?? [])].sort()) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return [...path, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start];
}

/** Each folder cycle of the project at `root`, printed: the folders, then one import per arrow. */
export function folderCycles(root: string): string[] {
  const graph = folderGraph(moduleImports(root));
  const reports: string[] = [];
  for (const group of tangledGroups(graph)) {
    // Every folder of a tangle lies on some cycle; each is shown once, through its smallest folder first.
    const shown = new Set<string>();
    for (const start of group) {
      const cycle = cycleThrough(graph, group, start);
      const key = [...cycle.slice(0, -1)].sort().join(' ');
      if (shown.has(key)) continue;
      shown.add(key);
      const lines = [`folder cycle: ${cycle.join(' → ')}`];
      for (let i = 0; i + 1 < cycle.length; i++) {
        const edge = graph.get(cycle[i]!)!.get(cycle[i + 1]!)!;
        lines.push(`  ${edge.from} → ${edge.to}`);
      }
      reports.push(lines.join('\n'));
    }
  }
  return reports;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const root = resolve(process.argv[2] ?? '.');
  const cycles = folderCycles(root);
  if (cycles.length === 0) {
    console.log('folder-cycles: no cycle among the folders of src/');
  } else {
    console.error(cycles.join('\n'));
    console.error(`folder-cycles: ${cycles.length} cycle(s) among the folders of src/`);
    process.exitCode = 1;
  }
}
