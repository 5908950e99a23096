/**
 * The import graph of the repository's TypeScript: every .ts file outside node_modules, dist and dot folders,
 * with an edge for each relative specifier of an import, an `export ... from`, an `import()` or a
 * `require()`, type-only ones included (a type import ties two folders together as much as a value does).
 * Specifiers are read by TypeScript's own pre-processor, which parses without type-checking.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const root = resolve(__dirname, '..', '..');

const skipped = new Set(['node_modules', 'dist']);

/** Every .ts file under `dir` (relative to the root, with forward slashes), sorted. */
export function tsFiles(dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name.startsWith('.') || skipped.has(e.name)) return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.name.endsWith('.ts') ? [relative(root, path).split('\\').join('/')] : [];
  }).sort();
}

const isFile = (path: string): boolean => existsSync(path) && statSync(path).isFile();

/** The file a relative specifier names, as the bundler resolution of tsconfig finds it, or undefined. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const target = resolve(root, dirname(from), specifier);
  const found = [`${target}.ts`, join(target, 'index.ts'), target].find(isFile);
  return found && relative(root, found).split('\\').join('/');
}

export type Graph = Map<string, string[]>;

/** File → the repository files it imports. A relative specifier that names no file is an error. */
export function importGraph(files = tsFiles()): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const targets = importedFiles.map((i) => i.fileName).filter((s) => s.startsWith('./') || s.startsWith('../')).map((s) => {
      const target = resolveSpecifier(file, s);
      if (!target) throw new Error(`${file}: cannot resolve ${s}`);
      return target;
    });
    graph.set(file, [...new Set(targets)].filter((t) => t.endsWith('.ts')));
  }
  return graph;
}

/** Files that import one another, directly or not, and one closed path among them (`a.ts, b.ts, a.ts`). */
export type Cycle = { files: string[]; path: string[] };

/** One cycle per strongly connected component of more than one file (or per file that imports itself). */
export function cycles(graph: Graph): Cycle[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.includes(v)) components.push(component);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return components.map((c) => ({ files: c.sort(), path: closedPath(graph, new Set(c)) }));
}

/** A shortest cycle through the first (alphabetically) file of a strongly connected component. */
function closedPath(graph: Graph, component: Set<string>): string[] {
  const start = [...component].sort()[0]!;
  const from = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const w of graph.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u: string | undefined = v; u !== start && u; u = from.get(u)) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  throw new Error(`no cycle through ${start}`);
}

/** The edges from files under folder `from` to files under folder `to`, as `a.ts → b.ts`. */
export function edgesBetween(graph: Graph, from: string, to: string): string[] {
  return [...graph].flatMap(([file, targets]) =>
    file.startsWith(`${from}/`) ? targets.filter((t) => t.startsWith(`${to}/`)).map((t) => `${file} → ${t}`) : []);
}

/** The graph of top-level folders (a file at the root is a folder of its own): an edge where any file of one
 * imports a file of the other. */
export function folderGraph(graph: Graph): Graph {
  const top = (file: string): string => file.split('/')[0]!;
  const folders: Graph = new Map();
  for (const [file, targets] of graph) {
    const from = top(file);
    const to = new Set([...folders.get(from) ?? [], ...targets.map(top).filter((t) => t !== from)]);
    folders.set(from, [...to]);
  }
  return folders;
}
