/** `node-agent`'s node token (issue 20 item 7): never in the command line where workers run as their own users
 * (every process can read /proc/<pid>/cmdline); from `--token-file`, or from HOSTPLANE_NODE_TOKEN, which is taken
 * out of the environment once read so that no process the agent starts inherits it. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeAgentSettings } from '../../cli/node-agent';
import { parse } from '../../cli/options';

let dir: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'hostplane-token-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const flags = (...extra: string[]) => parse(['node-agent', '--node', 'n1', '--dir', dir, '--control', 'http://127.0.0.1:1', ...extra]).values;

describe('the node token', () => {
  it('--token is refused where workers are isolated, naming the ways that keep it out of argv', () => {
    expect(() => nodeAgentSettings(flags('--token', 'hp_node_x'), {}, true)).toThrow(/--token puts the node token in the agent's command line.*--token-file FILE or HOSTPLANE_NODE_TOKEN/);
  });

  it('--token is taken where workers share the agent\'s user anyway', () => {
    expect(nodeAgentSettings(flags('--token', 'hp_node_x'), {}, false).token).toBe('hp_node_x');
  });

  it('--token-file: the file\'s token, without its line end', () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'hp_node_from_file\n', { mode: 0o600 });
    expect(nodeAgentSettings(flags('--token-file', file), {}, true).token).toBe('hp_node_from_file');
    expect(() => nodeAgentSettings(flags('--token-file', join(dir, 'missing')), {}, true)).toThrow(/--token-file .* cannot be read: ENOENT/);
  });

  it('HOSTPLANE_NODE_TOKEN: taken, and removed from the environment so that no worker inherits it', () => {
    const env: NodeJS.ProcessEnv = { HOSTPLANE_NODE_TOKEN: 'hp_node_env', PATH: '/bin' };
    expect(nodeAgentSettings(flags(), env, true).token).toBe('hp_node_env');
    expect(env).toEqual({ PATH: '/bin' });
  });

  it('two sources, or none, are usage errors', () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'a');
    expect(() => nodeAgentSettings(flags('--token-file', file), { HOSTPLANE_NODE_TOKEN: 'b' }, true)).toThrow(/one node token, but has --token-file and HOSTPLANE_NODE_TOKEN/);
    expect(() => nodeAgentSettings(flags(), {}, true)).toThrow(/needs --token-file FILE or HOSTPLANE_NODE_TOKEN/);
  });
});
