/**
 * What the front end hands a request to, after the access gate has let it through, instead of the project's
 * worker: the node's own services under `/__service/` (the sign-in handler, agent/signin/). The front end has
 * already answered what is not for a known host, and the gate what it refuses.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BundleProject } from '../sync/bundle';

export interface ServiceContext {
  /** The project that holds the host, as the last applied bundle has it. */
  project: BundleProject;
  /** The host the request is for: lower case, without port or trailing dot. */
  host: string;
  /** The origin-form target (`/__service/auth/login/github?x=1`). */
  path: string;
  requestId: string;
}

/** Answers the request and returns true, or returns false without touching it (the worker gets it). */
export type ServiceHandler = (req: IncomingMessage, res: ServerResponse, ctx: ServiceContext) => boolean;

/** A service of the node as the agent runs it: it answers requests, follows each applied bundle and is closed
 * when the agent stops. */
export interface NodeService {
  handle: ServiceHandler;
  apply(projects: readonly BundleProject[]): void;
  close(): void;
}
