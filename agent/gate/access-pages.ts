/**
 * The access gate's pages for browsers: the password form and the short pages that say why a request was
 * refused. Minimal HTML with everything interpolated escaped, no script, and headers that keep them out of
 * frames, caches and other origins' forms and referrers.
 */
import type { ServerResponse } from 'node:http';

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
};

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:26rem;margin:12vh auto;padding:0 1rem;color:#222}'
  + 'input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box;margin:.3rem 0 .8rem}'
  + 'button{font:inherit;padding:.4rem 1rem}.note{color:#a00}';

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">`
    + `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** The password form for `host`, posting to the gate's login path with the CSRF token and where to go next. */
export function passwordPage(o: { host: string; action: string; next: string; csrf: string; note?: string }): string {
  return page(`${o.host}: password`, `<h1>${escapeHtml(o.host)}</h1><p>This deployment is protected by a password.</p>`
    + (o.note ? `<p class="note">${escapeHtml(o.note)}</p>` : '')
    + `<form method="post" action="${escapeHtml(o.action)}">`
    + `<input type="hidden" name="csrf" value="${escapeHtml(o.csrf)}"><input type="hidden" name="next" value="${escapeHtml(o.next)}">`
    + '<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required autofocus>'
    + '<button type="submit">Continue</button></form>');
}

/** A page that says one thing (a refusal, a sign-out). */
export const messagePage = (title: string, text: string): string => page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`);

/** Writes an HTML page answer. */
export function sendPage(res: ServerResponse, status: number, html: string, headers: Record<string, string | string[]> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { ...PAGE_HEADERS, 'content-length': String(Buffer.byteLength(html)), ...headers });
  res.end(html);
}
