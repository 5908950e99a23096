/**
 * What tests and benchmarks of several `serve` on one PostgreSQL read from outside: a process's metrics (who leads,
 * its reconcile passes), and which process's writes landed, counted by the database itself. Each process connects as
 * a role of its own, so a trigger can tell them apart.
 */
import type pg from 'pg';

/** One value of the Prometheus text at `metricsUrl` (the sum over labels). */
export async function metricSum(metricsUrl: string, name: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return text.split('\n').filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`)).reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

/** Whether the process whose metrics are at `metricsUrl` leads now. */
export const leadsAt = async (metricsUrl: string): Promise<boolean> => (await metricSum(metricsUrl, 'hostplane_leader')) === 1;

/** Counts from now on every committed row change each role makes to what reconcilers write: not the lease, the
 * process list, the feed or its followers' positions, which every process writes. Run again after a migration. */
export async function countWritesByRole(sql: pg.Client): Promise<void> {
  await sql.query('CREATE TABLE IF NOT EXISTS test_writes (id bigserial PRIMARY KEY, role text NOT NULL, tbl text NOT NULL, at_ms bigint NOT NULL)');
  await sql.query(`CREATE OR REPLACE FUNCTION test_count_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    INSERT INTO test_writes (role, tbl, at_ms) VALUES (current_user, TG_TABLE_NAME, (extract(epoch from clock_timestamp()) * 1000)::bigint); RETURN NULL; END $$`);
  const { rows } = await sql.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'
    AND tablename NOT IN ('leader', 'processes', 'changes', 'feed_consumers', 'store_meta', 'test_writes')`);
  for (const { name } of rows) {
    await sql.query(`DROP TRIGGER IF EXISTS test_count_write ON "${name}"`);
    await sql.query(`CREATE TRIGGER test_count_write AFTER INSERT OR UPDATE OR DELETE ON "${name}" FOR EACH ROW EXECUTE FUNCTION test_count_write()`);
  }
}

/** The row changes `role` committed from `sinceMs` on, and before `untilMs` (the database's clock), as
 * countWritesByRole counts them. */
export const writesOf = async (sql: pg.Client, role: string, sinceMs: number, untilMs = Number.MAX_SAFE_INTEGER): Promise<number> =>
  Number((await sql.query<{ n: string }>('SELECT count(*) AS n FROM test_writes WHERE role = $1 AND at_ms >= $2 AND at_ms < $3', [role, sinceMs, untilMs])).rows[0]!.n);

/** The lease row, with the database's clock (ms) beside it. */
export const leaderRow = async (sql: pg.Client) => (await sql.query<{ term: string; url: string; since_ms: string; expires_ms: string; now_ms: string }>(
  'SELECT term, url, since_ms, expires_ms, (extract(epoch from clock_timestamp()) * 1000)::bigint AS now_ms FROM leader')).rows[0]!;
