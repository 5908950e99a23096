/**
 * The folders' dependencies point one way: no file imports itself back through others, lib/ (infrastructure
 * every folder may use) imports nothing of store/, and bench/ does not lean on test/ helpers (what both use to
 * start real daemons is harness/). A failure names
 * the offending path, so the fix starts from the message.
 */
import { describe, expect, it } from 'vitest';
import { cycles, edgesBetween, folderGraph, importGraph, type Graph } from './graph';

const graph = importGraph();

describe('the import graph', () => {
  it('covers the sources, the tests and the benchmarks', () => {
    for (const file of ['cli/main.ts', 'store/db.ts', 'test/architecture/graph.ts', 'bench/run.ts']) expect(graph.has(file)).toBe(true);
    expect(graph.get('cli/main.ts')).toContain('cli/run.ts');
  });

  it('has no cycle', () => {
    expect(cycles(graph).map((c) => `${c.path.join(' → ')} (among ${c.files.join(', ')})`)).toEqual([]);
  });

  it('has no cycle between top-level folders either', () => {
    expect(cycles(folderGraph(graph)).map((c) => c.path.join(' → '))).toEqual([]);
  });

  it('has no edge from lib/ to store/', () => {
    expect(edgesBetween(graph, 'lib', 'store')).toEqual([]);
  });

  it('has no edge from bench/ to test/', () => {
    expect(edgesBetween(graph, 'bench', 'test')).toEqual([]);
  });

  it('keeps agent/ to lib/, rules/ and client/ of the rest of the tree (a node runs none of the server)', () => {
    const outside = [...graph].flatMap(([file, targets]) => file.startsWith('agent/')
      ? targets.filter((t) => !/^(agent|lib|rules|client)\//.test(t)).map((t) => `${file} → ${t}`) : []);
    expect(outside).toEqual([]);
  });

  it('has no edge from harness/, which test/ and bench/ share, to either', () => {
    expect([...edgesBetween(graph, 'harness', 'test'), ...edgesBetween(graph, 'harness', 'bench')]).toEqual([]);
  });
});

describe('cycles', () => {
  const g = (edges: Record<string, string[]>): Graph => new Map(Object.entries(edges));

  it('are found between folders when their files form none', () => {
    const files = g({ 'a/x.ts': ['b/y.ts'], 'b/y.ts': [], 'b/z.ts': ['a/w.ts'], 'a/w.ts': [] });
    expect(cycles(files)).toEqual([]);
    expect(cycles(folderGraph(files)).map((c) => c.path)).toEqual([['a', 'b', 'a']]);
  });

  it('finds none in a graph without one', () => {
    expect(cycles(g({ 'a.ts': ['b.ts', 'c.ts'], 'b.ts': ['c.ts'], 'c.ts': [] }))).toEqual([]);
  });

  it('names every file of a cycle and a path that closes on its first file', () => {
    expect(cycles(g({ 'd.ts': ['b.ts'], 'b.ts': ['c.ts'], 'c.ts': ['d.ts', 'e.ts'], 'e.ts': [] })))
      .toEqual([{ files: ['b.ts', 'c.ts', 'd.ts'], path: ['b.ts', 'c.ts', 'd.ts', 'b.ts'] }]);
  });

  it('reports a file that imports itself', () => {
    expect(cycles(g({ 'a.ts': ['a.ts'] }))).toEqual([{ files: ['a.ts'], path: ['a.ts', 'a.ts'] }]);
  });
});
