import { defineConfig } from 'drizzle-kit';

// The PostgreSQL twin of drizzle.config.ts: its schema is derived from store/schema.ts (store/schema-pg.ts), so
// `npm run db:generate` writes both stores' migrations from one change.
export default defineConfig({
  dialect: 'postgresql',
  schema: './store/schema-pg.ts',
  out: './store/migrations-pg',
});
