/**
 * Live pages (issue 24 item 3: a page that shows a resource updates within 2 s of a change, without a reload): the
 * script /console/live.js that a page made with a version (html.ts page(), Kit.live) loads. It long-polls the page's
 * own URL with `?live=<version>`, which the server holds until what the page shows has changed (api/wait.ts, woken
 * by the commit of the change or of the resource's status), then fetches the page again and swaps in its `<main>`.
 *
 * The page is the person's: it is not swapped while a field of it has focus, a form of it was typed into, or an
 * edit form (`<details>`) is open; it waits until they are done, and says so in the status line. Focus on a link or
 * button is put back on the same one after the swap. The status line (aria-live polite) says when the page was
 * updated, with the page's summary (`data-live-summary`), so a screen reader hears the news and not the whole page.
 * Without JavaScript the page is as it was: a reload shows what is new.
 */

export const LIVE_SCRIPT = `'use strict';
(() => {
  const main = document.querySelector('main[data-live]');
  const status = document.getElementById('live-status');
  if (!main || !status || !window.fetch || !window.DOMParser) return;
  let typed = false;
  main.addEventListener('input', () => { typed = true; });
  const busy = () => {
    const a = document.activeElement;
    return typed || (a !== null && main.contains(a) && a.matches('input, textarea, select')) || main.querySelector('details[open]') !== null;
  };
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const say = (text) => { if (status.textContent !== text) status.textContent = text; };
  const whenFree = async () => {
    if (!busy()) return;
    say('This page has changed: it updates once you are done with the form (or reload it).');
    while (busy()) await sleep(500);
  };
  // Where focus was, to put it back on the same control in the fresh page.
  const focusKey = () => {
    const a = document.activeElement;
    if (a === null || !main.contains(a)) return null;
    if (a.id) return '#' + CSS.escape(a.id);
    if (a.matches('a[href]')) return 'a[href="' + CSS.escape(a.getAttribute('href')) + '"]';
    return null;
  };
  const swap = (fresh) => {
    const key = focusKey();
    main.innerHTML = fresh.innerHTML;
    main.dataset.live = fresh.dataset.live;
    const again = key === null ? null : main.querySelector(key);
    if (again !== null) again.focus({ preventScroll: true });
    typed = false;
    const summary = main.querySelector('[data-live-summary]');
    say('Updated at ' + new Date().toLocaleTimeString() + (summary === null ? '.' : ': ' + summary.textContent.trim()));
  };
  const stop = () => say('Live updates stopped: reload the page to see what is new.');
  const ask = (url) => fetch(url, { credentials: 'same-origin', cache: 'no-store', redirect: 'manual' });
  (async () => {
    let failures = 0;
    let unheld = 0;
    for (;;) {
      try {
        const poll = new URL(location.href);
        poll.searchParams.set('live', main.dataset.live);
        const asked = Date.now();
        const r = await ask(poll);
        // Signed out (a redirect), refused or gone: the page says why on a reload.
        if (r.type === 'opaqueredirect' || (r.status >= 400 && r.status < 500)) return stop();
        if (!r.ok) throw new Error('poll answered ' + r.status);
        const { version } = await r.json();
        failures = 0;
        if (version === main.dataset.live) {
          // The same version at once: the poll was not held (the organization holds as many as the server holds for
          // one, or the server is stopping). Asking again at once would have the server read the page in a loop.
          if (Date.now() - asked < 1000) await sleep(Math.min(30000, 1000 * 2 ** ++unheld));
          else unheld = 0;
          continue;
        }
        unheld = 0;
        await whenFree();
        const page = await ask(location.href);
        if (!page.ok) return stop();
        const fresh = new DOMParser().parseFromString(await page.text(), 'text/html').querySelector('main[data-live]');
        if (fresh === null) return stop();
        await whenFree();
        swap(fresh);
      } catch {
        // The server restarts or the network is gone a while: try again, less and less often.
        failures += 1;
        await sleep(Math.min(30000, 500 * 2 ** failures));
      }
    }
  })();
})();
`;
