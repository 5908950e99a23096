/** The console's pages (api/console/html.ts): every value put into a page is escaped, whoever chose it. */
import { describe, expect, it } from 'vitest';
import { homePage, html, messagePage, signInPage } from '../../../api/console/html';

const EVIL = '"><script>alert(1)</script>\'&';

describe('console pages', () => {
  it('escapes every interpolated value, and only built HTML goes in as it is', () => {
    expect(html`<p>${EVIL}</p>`.text).toBe('<p>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39;&amp;</p>');
    expect(html`<div>${html`<b>${EVIL}</b>`}</div>`.text).toBe('<div><b>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39;&amp;</b></div>');
  });

  it('holds no value unescaped: sign-in (email, next, error), a message, an organization list', () => {
    const pages = [
      signInPage({ csrf: 'c', next: EVIL, email: EVIL, error: EVIL }),
      messagePage(EVIL, { email: EVIL, csrf: EVIL }, EVIL),
      homePage({ email: 'a@b.test', csrf: 'c' }, [{ slug: EVIL, plan: EVIL, role: EVIL }]),
    ];
    for (const p of pages) {
      expect(p).not.toContain('<script>');
      expect(p).toContain('&lt;script&gt;');
    }
  });

  it('labels every input the user fills in', () => {
    const p = signInPage({ csrf: 'c', next: '/console' });
    for (const id of [...p.matchAll(/<input id="(\w+)"/g)].map((m) => m[1])) expect(p).toContain(`<label for="${id}">`);
  });
});
