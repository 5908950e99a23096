/**
 * The purchase saga against a real `hostplane serve` killed by SIGKILL mid-step (issue 13's fault table, last
 * column). The sandbox registrar and payment provider run in the test (`--registrar-url`, `--payment-url`) so they
 * outlive serve and count what was done. A step is made to hang after doing its work (`late`): serve is killed
 * while it waits, then started again; then either the purchase is sent again (it resumes: one charge, one
 * registration, the domain active with its zone), or it is not, and the domain reconciler finishes it once
 * abandoned (`--purchase-abandon-after 1s`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaymentSandbox, type PaymentSandbox } from '../../providers/payment/sandbox';
import { startRegistrarSandbox, type RegistrarSandbox } from '../../providers/registrar/sandbox';
import { CONTACT, CONTACT_VALUES, purchaseBody } from '../helpers/domains';
import { bootstrapWithCli, cleanup, http, startHostplane, tempDir, type Running } from '../helpers/proc';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

let registrar: RegistrarSandbox;
let payments: PaymentSandbox;

beforeAll(async () => {
  registrar = await startRegistrarSandbox();
  payments = await startPaymentSandbox();
});
afterAll(async () => {
  await cleanup();
  await registrar.close();
  await payments.close();
});

// Port 0: each start of serve has its knotd take a port of its own; one picked here and reused by every start
// over a minute could be another process's by then.
const serveArgs = (dir: string, extra: string[] = []) => [
  'serve', '--port', '0', '--data', dir, '--dns-listen', '127.0.0.1:0', '--nameservers', 'ns1.hostplane.test,ns2.hostplane.test',
  '--registrar-url', registrar.url, '--payment-url', payments.url, ...extra,
];
const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe.each([
  ['the charge', 'charge'],
  ['the registration', 'register'],
] as const)('serve killed while it waits for %s', (_what, op) => {
  for (const resend of [true, false]) {
    it(resend ? 'then the purchase sent again finishes it: once' : 'with no resend, the reconciler finishes it once abandoned', async () => {
      const dir = tempDir();
      const token = await bootstrapWithCli(dir);
      const name = `killed-${op}-${resend ? 'resend' : 'abandoned'}.com`;
      let serve: Running = await startHostplane(serveArgs(dir));
      const fault = { mode: 'late' as const, times: 1, delayMs: 60_000 };
      if (op === 'charge') payments.fault({ ...fault, operations: ['charge'] });
      else registrar.fault({ ...fault, operations: ['register'] });
      const pending = http(serve.url, 'POST', '/v1/orgs/acme/domains', { token, body: purchaseBody(name) }).catch(() => null);
      // The provider has done the work; its answer is held back. Kill serve now.
      await until('the step', () => (op === 'charge' ? payments.charges().some((c) => c.description.startsWith(`${name},`)) : registrar.domains().some((d) => d.name === name)));
      await serve.stop('SIGKILL');
      await pending;
      payments.fault(null);
      registrar.fault(null);
      serve = await startHostplane(serveArgs(dir, resend ? [] : ['--purchase-abandon-after', '1s']));
      if (resend) {
        const r = await http(serve.url, 'POST', '/v1/orgs/acme/domains', { token, body: purchaseBody(name) });
        expect(r.status, r.text).toBe(201);
      } else {
        await until('the reconciler finishing the purchase', async () => (await http(serve.url, 'GET', `/v1/orgs/acme/domains/${name}`, { token })).body?.status === 'active');
      }
      const d = await http(serve.url, 'GET', `/v1/orgs/acme/domains/${name}`, { token });
      expect(d.body).toMatchObject({ status: 'active' });
      expect((await http(serve.url, 'GET', `/v1/orgs/acme/dns/zones/${name}`, { token })).status).toBe(200);
      expect(payments.charges().filter((c) => c.description.startsWith(`${name},`))).toEqual([expect.objectContaining({ refunded: false })]);
      expect(registrar.domains().filter((x) => x.name === name)).toHaveLength(1);
      const leaked = [...CONTACT_VALUES, CONTACT.email].filter((v) => serve.stderr().includes(v)
        || readdirSync(dir).filter((f) => f.startsWith('hostplane.db')).some((f) => readFileSync(join(dir, f)).toString('latin1').includes(v)));
      expect(leaked).toEqual([]);
      await serve.stop();
    }, 60_000);
  }
});

describe('serve --registrar off', () => {
  it('answers checkDomains and purchaseDomain with 503 registrar_not_configured', async () => {
    const dir = tempDir();
    const token = await bootstrapWithCli(dir);
    const serve = await startHostplane(['serve', '--port', '0', '--data', dir, '--dns-listen', '127.0.0.1:0', '--registrar', 'off']);
    const r = await http(serve.url, 'POST', '/v1/orgs/acme/domains/check', { token, body: { names: ['a.com'] } });
    expect(r.status).toBe(503);
    expect(r.body.code).toBe('registrar_not_configured');
    expect((await http(serve.url, 'POST', '/v1/orgs/acme/domains', { token, body: purchaseBody('a.com') })).body.code).toBe('registrar_not_configured');
    await serve.stop();
  });

  it('serve alone starts sandbox providers on loopback: a purchase works out of the box', async () => {
    const dir = tempDir();
    const token = await bootstrapWithCli(dir);
    const serve = await startHostplane(['serve', '--port', '0', '--data', dir, '--dns-listen', '127.0.0.1:0']);
    const r = await http(serve.url, 'POST', '/v1/orgs/acme/domains', { token, body: purchaseBody('sandboxed.com') });
    expect(r.status, r.text).toBe(201);
    await serve.stop();
  });
});
