/**
 * The social sign-in providers a project may register its own OAuth app with (spec 4.2 rule 5), and where a
 * node reaches each of them. The endpoints are the operator's (`--oauth-providers`): the real providers' public
 * ones by default, a sandbox's on loopback for the embedded default, or a JSON file naming some of them, so a
 * node talks to whichever the control plane was configured with. They travel to nodes in the bundle's `signIn`.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export const OAUTH_PROVIDERS = ['github', 'google', 'kakao'] as const;
export const OAuthProvider = z.enum(OAUTH_PROVIDERS);
export type OAuthProviderName = z.infer<typeof OAuthProvider>;

const Url = z.string().refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), 'an http or https URL');

export const ProviderEndpointsSchema = z.strictObject({
  authorize: Url,
  token: Url,
  userInfo: Url,
  emails: Url.nullable().meta({ description: 'where verified email addresses are read when the user info may lack one (GitHub); null: none' }),
});
export type ProviderEndpoints = z.infer<typeof ProviderEndpointsSchema>;
export type ProviderEndpointTable = Record<OAuthProviderName, ProviderEndpoints>;

/** The providers' public endpoints, as each documents them. */
export const REAL_ENDPOINTS: ProviderEndpointTable = {
  github: {
    authorize: 'https://github.com/login/oauth/authorize',
    token: 'https://github.com/login/oauth/access_token',
    userInfo: 'https://api.github.com/user',
    emails: 'https://api.github.com/user/emails',
  },
  google: {
    authorize: 'https://accounts.google.com/o/oauth2/v2/auth',
    token: 'https://oauth2.googleapis.com/token',
    userInfo: 'https://openidconnect.googleapis.com/v1/userinfo',
    emails: null,
  },
  kakao: {
    authorize: 'https://kauth.kakao.com/oauth/authorize',
    token: 'https://kauth.kakao.com/oauth/token',
    userInfo: 'https://kapi.kakao.com/v2/user/me',
    emails: null,
  },
};

// Every provider optional: a file may redirect only the providers it names.
const EndpointFile = z.strictObject({ github: ProviderEndpointsSchema, google: ProviderEndpointsSchema, kakao: ProviderEndpointsSchema }).partial();

/**
 * The endpoint table of a JSON text `{"github": {"authorize", "token", "userInfo", "emails"}, ...}`: the providers
 * it names get its endpoints (all four given; `emails` may be null), the others keep the real ones. Throws an
 * Error naming the first invalid field.
 */
export function parseProviderEndpoints(text: string): ProviderEndpointTable {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON: ${(e as Error).message}`);
  }
  const r = EndpointFile.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new Error(`${i.path.join('.') || 'the file'}: ${i.message}`);
  }
  return { ...REAL_ENDPOINTS, ...r.data };
}

/** `parseProviderEndpoints` of a file; errors name the file. */
export function readProviderEndpoints(path: string): ProviderEndpointTable {
  try {
    return parseProviderEndpoints(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** The reserved secret name a provider's client secret is sealed under (with `secretContext`, as project
 * secrets are). A slash cannot occur in a secret name, so it never meets one. */
export const clientSecretName = (provider: OAuthProviderName): string => `auth/${provider}`;
