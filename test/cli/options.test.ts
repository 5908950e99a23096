/** --advertise-url (CONTRACT.md "Several machines", docs/deployment.md): the URL the leader lease names, and the
 * refusal of a start whose lease would name every address of its machine, which no other machine can send to. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { advertiseUrl, checkServerFlags, parse, type ServerCommand } from '../../cli/options';

const flags = (...argv: string[]) => parse(['serve', '--data', '/nonexistent/data', ...argv]).values;
const PG = ['--database-url', 'postgres://hp@127.0.0.1:5432/hp'];

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('advertiseUrl', () => {
  it('is the flag as an origin, else HOSTPLANE_ADVERTISE_URL, else undefined (the listening URL is used)', () => {
    vi.stubEnv('HOSTPLANE_ADVERTISE_URL', '');
    expect(advertiseUrl(flags())).toBeUndefined();
    expect(advertiseUrl(flags('--advertise-url', 'http://10.0.0.1:8080/'))).toBe('http://10.0.0.1:8080');
    expect(advertiseUrl(flags('--advertise-url', 'https://[fd00::1]:8443'))).toBe('https://[fd00::1]:8443');
    vi.stubEnv('HOSTPLANE_ADVERTISE_URL', 'http://10.0.0.2:8080');
    expect(advertiseUrl(flags())).toBe('http://10.0.0.2:8080');
    expect(advertiseUrl(flags('--advertise-url', 'http://10.0.0.1:8080'))).toBe('http://10.0.0.1:8080');
  });

  it.each([
    ['no scheme', '10.0.0.1:8080', /^invalid --advertise-url 10\.0\.0\.1:8080; expected an http or https URL$/],
    ['a path', 'http://10.0.0.1:8080/api', /expected a scheme, an address and a port only/],
    ['credentials', 'http://u:p@10.0.0.1:8080', /expected a scheme, an address and a port only/],
    ['every IPv4 address', 'http://0.0.0.0:8080', /0\.0\.0\.0 is every address of a machine, not one another machine can reach$/],
    ['every IPv6 address', 'http://[::]:8080', /\[::\] is every address of a machine/],
  ])('refuses %s with a 400 naming the flag', (_label, value, message) => {
    expect(() => advertiseUrl(flags('--advertise-url', value))).toThrow(expect.objectContaining({ status: 400, message: expect.stringMatching(message) }));
  });
});

describe('checkServerFlags and a --host of every address', () => {
  it.each<[ServerCommand, string]>([['serve', '0.0.0.0'], ['core', '::']])('%s --host %s on PostgreSQL without --advertise-url: refused, naming the flag', async (command, host) => {
    vi.stubEnv('HOSTPLANE_ADVERTISE_URL', '');
    const f = parse([command, '--data', '/nonexistent/data', '--core-token', 't', '--host', host, '--port', '8080', ...PG]).values;
    await expect(checkServerFlags(command, f)).rejects.toMatchObject({
      status: 400,
      message: `--host ${host} listens on every address, so it names none the other processes can send the leader's calls to: give --advertise-url (or HOSTPLANE_ADVERTISE_URL), the URL they reach this process at, as http://10.0.0.1:8080`,
    });
  });

  it('starts with --advertise-url or HOSTPLANE_ADVERTISE_URL, on SQLite (one process leads, nothing is forwarded), and for api (it never leads)', async () => {
    vi.stubEnv('HOSTPLANE_ADVERTISE_URL', '');
    vi.stubEnv('HOSTPLANE_DATABASE_URL', '');
    await expect(checkServerFlags('serve', flags('--host', '0.0.0.0', ...PG, '--advertise-url', 'http://10.0.0.1:8080'))).resolves.toBeUndefined();
    await expect(checkServerFlags('serve', flags('--host', '0.0.0.0'))).resolves.toBeUndefined();
    await expect(checkServerFlags('api', parse(['api', '--data', '/nonexistent/data', '--host', '0.0.0.0', ...PG]).values)).resolves.toBeUndefined();
    vi.stubEnv('HOSTPLANE_ADVERTISE_URL', 'http://10.0.0.1:8080');
    await expect(checkServerFlags('serve', flags('--host', '0.0.0.0', ...PG))).resolves.toBeUndefined();
  });
});
