/** The resolvers a test file asks, on loopback: the stub resolver, and a silent one (a UDP socket bound and never
 * answering: a resolver that is down but whose address is reachable); never the machine's resolver. */
import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll } from 'vitest';
import { startStubResolver, type StubResolver } from './stub-resolver';

export interface TestResolvers {
  stub: StubResolver;
  /** The silent resolver's `ip:port`. */
  silentAt: string;
}

/** Starts both before the file's tests (then hands them to `ready`) and closes them after. */
export function useResolvers(ready: (r: TestResolvers) => void): void {
  let stub: StubResolver | undefined;
  let silent: Socket | undefined;
  beforeAll(async () => {
    stub = await startStubResolver();
    const s = createSocket('udp4');
    silent = s;
    await new Promise<void>((r) => s.bind(0, '127.0.0.1', r));
    ready({ stub, silentAt: `127.0.0.1:${s.address().port}` });
  });
  afterAll(async () => {
    await stub?.close();
    silent?.close();
  });
}
