/** A browser for the console's tests over HTTP: a cookie jar, redirects left to the test. */

export interface Page { status: number; headers: Headers; text: string; location: string | null }

/** A browser: its cookie jar, redirects left to the test. */
export class Browser {
  readonly cookies = new Map<string, { value: string; attrs: string }>();
  constructor(private readonly base: string) {}

  async go(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    const cookie = [...this.cookies].map(([k, c]) => `${k}=${c.value}`).join('; ');
    const res = await fetch(this.base + path, {
      method, redirect: 'manual',
      headers: { ...(cookie && { cookie }), ...(form && { 'content-type': 'application/x-www-form-urlencoded' }), ...headers },
      body: form && new URLSearchParams(form).toString(),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(';');
      const at = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, at), pair!.slice(at + 1)];
      if (value === '') this.cookies.delete(name);
      else this.cookies.set(name, { value, attrs: attrs.join(';').trim().toLowerCase() });
    }
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
  }

  /** The CSRF token of the page's first form. */
  static csrf(page: Page): string {
    return /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
  }

  /** A browser at `base` signed in as `email`; throws unless the sign-in was accepted. */
  static async signedIn(base: string, email: string, password: string): Promise<Browser> {
    const b = new Browser(base);
    const r = await b.signIn(email, password);
    if (r.status !== 303) throw new Error(`signing in as ${email} answered ${r.status}`);
    return b;
  }

  async signIn(email: string, password: string, next = '/console'): Promise<Page> {
    const form = await this.go('GET', `/console/sign-in?next=${encodeURIComponent(next)}`);
    return this.go('POST', '/console/sign-in', { csrf: Browser.csrf(form), next, email, password });
  }
}
