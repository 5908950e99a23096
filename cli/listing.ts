/** Rows printed as aligned columns, or as a JSON array with `--json`. */
export class Listing {
  private jsonRows?: unknown[];
  constructor(readonly columns: readonly (readonly [header: string, key: string])[], readonly rows: Record<string, unknown>[]) {}

  /** What `--json` prints instead of the rows shown, when the two differ. */
  withJson(rows: unknown[]): this {
    this.jsonRows = rows;
    return this;
  }

  json(): unknown[] {
    return this.jsonRows ?? this.rows;
  }

  text(): string {
    const cell = (v: unknown): string => (v === null || v === undefined || v === '' ? '-' : Array.isArray(v) ? v.join(',') || '-' : String(v));
    const table = [this.columns.map(([h]) => h), ...this.rows.map((r) => this.columns.map(([, k]) => cell(r[k])))];
    const widths = this.columns.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
    return table.map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
  }
}
