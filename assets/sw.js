// cashkeeper service worker: shows payment reminders and opens the
// recurring expenses when one is clicked.
'use strict';

self.addEventListener('push', function (event) {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch (_) { data = { body: event.data && event.data.text() }; }
  const title = data.title || 'cashkeeper';
  event.waitUntil(self.registration.showNotification(title, {
    body: data.body || '',
    icon: '/assets/favicon.svg',
    badge: '/assets/favicon.svg',
    data: { url: data.url || '/expenses' },
    tag: data.title || 'cashkeeper',
  }));
});

self.addEventListener('notificationclick', function (event) {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || '/expenses';
  event.waitUntil((async function () {
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    for (const w of windows) {
      if (new URL(w.url).origin === self.location.origin && 'focus' in w) {
        await w.focus();
        if ('navigate' in w) await w.navigate(url);
        return;
      }
    }
    await self.clients.openWindow(url);
  })());
});
