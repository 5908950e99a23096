/**
 * Finalizers: what a deleted lifetime of a resource still holds outside the store. Deleting a zone or a custom
 * hostname inserts its row in the same transaction as the deletion; the kind's reconciler lists the rows of a
 * name, removes that lifetime's external state, and only then finishes the row. A crash or an outage in between
 * leaves the row for the next pass.
 */
import { eq, sql } from 'drizzle-orm';
import type { Store } from './db';
import { hostnameFinalizers, zoneFinalizers } from './schema';

const TABLES = { zone: zoneFinalizers, hostname: hostnameFinalizers };

export type FinalizerKind = keyof typeof TABLES;
/** A deleted lifetime (`uid`) of `name` whose cleanup is not done; a hostname's also says whose zone held records. */
export type Finalizer<K extends FinalizerKind> = (typeof TABLES)[K]['$inferSelect'];

/** The deleted lifetimes of `name` not finalized yet. */
export async function finalizersOf<K extends FinalizerKind>(s: Store, kind: K, name: string): Promise<Finalizer<K>[]> {
  // Every pass of every key asks (the hostname loop over 10,000 names is CPU-bound on SQL text): prepared once.
  const t: (typeof TABLES)[FinalizerKind] = TABLES[kind];
  return await s.prepared(`finalizersOf ${kind}`, (db) => db.select().from(t).where(eq(t.name, sql.placeholder('name'))).prepare())
    .execute({ name }) as Finalizer<K>[];
}

/** Nothing outside the store holds anything of lifetime `uid` any more. */
export async function finishFinalizer(s: Store, kind: FinalizerKind, uid: string): Promise<void> {
  const t = TABLES[kind];
  await s.write(async (tx) => {
    await tx.delete(t).where(eq(t.uid, uid));
  });
}
